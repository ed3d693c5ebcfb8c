#pragma once
// A zip archive's central directory, read and checked as a whole before any member is: the end
// record (Zip64 too), every entry's name, sizes and place within the file, its local header
// agreeing with it, and no name twice. A malformed archive is refused here with one line naming
// the file; a member that cannot be read (encrypted, or compressed other than stored or deflated)
// is refused only when it is opened, naming the member.

#include <cstdint>
#include <string>
#include <vector>

namespace bnscope {

constexpr std::uint16_t kZipStored = 0, kZipDeflated = 8;

struct ZipEntry {
  std::string name;
  std::uint16_t flags = 0, method = 0;
  std::uint32_t crc = 0;
  std::uint64_t packed = 0, size = 0;  // compressed and uncompressed bytes
  std::uint64_t data = 0;              // offset of the first data byte in the file
};

class ZipDirectory {
 public:
  // Reads fd (a file of file_size bytes); `path` names it in error messages.
  ZipDirectory(int fd, std::uint64_t file_size, std::string path);

  const std::vector<ZipEntry>& entries() const { return entries_; }
  const ZipEntry* find(const std::string& name) const;
  // Throws unless the member can be read: not encrypted, stored or deflated.
  void check_readable(const ZipEntry& e) const;

 private:
  std::string path_;
  std::vector<ZipEntry> entries_;
};

}  // namespace bnscope
