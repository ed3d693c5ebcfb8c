#pragma once
// A zip archive of stored (uncompressed) members written straight from the callers' buffers, as
// numpy's savez writes .npz files. Zip64 fields appear only where a size or offset needs them.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

namespace bnscope {

struct StoredMember {
  std::string name;
  std::vector<std::span<const std::byte>> parts;  // concatenated, e.g. a .npy header and its data
};

// `what` names the archive in error messages.
void write_stored_zip(std::FILE* f, const std::vector<StoredMember>& members,
                      const std::string& what);

// The same archive member by member, for members that are not all ready at the start: the bytes
// are those write_stored_zip gives for the members added, in the order added.
class StoredZipWriter {
 public:
  StoredZipWriter(std::FILE* f, std::string what);
  void add(const StoredMember& m);  // its parts are read (and may change) only during the call
  void finish();                    // the central directory; nothing may be added after it

 private:
  struct Entry {
    std::string name;
    std::uint64_t size = 0, offset = 0;
    std::uint32_t crc = 0;
  };
  std::FILE* f_;
  std::string what_;
  std::uint64_t at_ = 0;
  std::vector<Entry> entries_;
};

}  // namespace bnscope
