#pragma once
// A zip archive of stored (uncompressed) members written straight from the callers' buffers, as
// numpy's savez writes .npz files, or of deflated ones (io/zip_deflate.cpp) as savez_compressed
// does. Zip64 fields appear only where a size or offset needs them.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
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
  // A member of `size` bytes whose bytes arrive while it is written: `head`, then every span
  // next() returns until it returns an empty one. The CRC-32 goes into the local header once
  // all are out (the header is written first with the sizes and patched in place); an
  // exception from next() aborts the archive.
  void add_streamed(const std::string& name, std::span<const std::byte> head, std::uint64_t size,
                    const std::function<std::span<const std::byte>()>& next);
  // The member deflated (zlib's raw deflate at `level`) as it is written, in pieces that stay in
  // cache: its CRC-32 and sizes follow the data in a data descriptor, so nothing is held back or
  // patched and the file need not be seekable.
  void add_deflated(const StoredMember& m, int level);
  void finish();  // the central directory; nothing may be added after it

 private:
  struct Entry {
    std::string name;
    std::uint64_t size = 0, packed = 0, offset = 0;
    std::uint32_t crc = 0;
    std::uint16_t method = 0;
    bool described = false;  // CRC and sizes in a data descriptor after the data
    bool zip64 = false;      // Zip64 sizes in the local header
  };
  void local_header(Entry& e);
  void data_descriptor(const Entry& e);
  void put(const void* p, std::size_t n);

  std::FILE* f_;
  std::string what_;
  std::uint64_t at_ = 0;
  std::vector<Entry> entries_;
};

}  // namespace bnscope
