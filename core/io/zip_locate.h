#pragma once
// Where the bytes of an archive's stored members lie, read from its central directory, so a
// stored member can be read straight into place on every core (io/parallel_read.h) instead of
// through libzip's one-threaded copy and checksum. Anything it cannot place with certainty (a
// compressed or encrypted member, a malformed or unusual directory) is left out and read through
// libzip as before.

#include <cstdint>
#include <map>
#include <string>

namespace bnscope {

struct StoredSpan {
  std::uint64_t offset = 0;  // of the member's first data byte in the file
  std::uint64_t size = 0;
  std::uint32_t crc = 0;
};

// Never throws: a directory it cannot read gives an empty map.
std::map<std::string, StoredSpan> locate_stored_members(int fd, std::uint64_t file_size);

}  // namespace bnscope
