#include "io/bulk_write.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>

namespace bnscope {

namespace {

constexpr std::size_t kSlice = std::size_t{8} << 20;

}  // namespace

bool write_bulk(std::FILE* f, const void* data, std::size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  while (n) {
    const std::size_t len = std::min(n, kSlice);
    if (std::fwrite(p, 1, len, f) != len) return false;
    p += len;
    n -= len;
#if defined(__linux__)
    // Small writes stay in the stream's buffer; only whole slices are handed on. A file system
    // without sync_file_range (it fails) simply leaves the writeback to the final fsync.
    if (len == kSlice && std::fflush(f) == 0) {
      const int fd = ::fileno(f);
      const off_t end = ::lseek(fd, 0, SEEK_CUR);
      if (end >= static_cast<off_t>(kSlice))
        ::sync_file_range(fd, end - static_cast<off_t>(kSlice), static_cast<off_t>(kSlice),
                          SYNC_FILE_RANGE_WRITE);
    }
#endif
  }
  return true;
}

}  // namespace bnscope
