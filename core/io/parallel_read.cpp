#include "io/parallel_read.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "io/crc32.h"
#include "tensor/error.h"
#include "tensor/parallel.h"

namespace bnscope {

namespace {

constexpr std::size_t kPiece = std::size_t{256} << 10;  // read, then checksummed from cache

// The CRC-32 (from 0) of n bytes read at offset into dst.
unsigned long read_part(int fd, std::uint64_t offset, std::byte* dst, std::size_t n,
                        const std::string& what) {
  std::uint32_t crc = 0;
  std::size_t at = 0;
  while (at < n) {
    const std::size_t want = std::min(kPiece, n - at);
    const ssize_t got = ::pread(fd, dst + at, want, static_cast<off_t>(offset + at));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) fail(what + ": cannot read the member: " + std::strerror(errno));
    if (got == 0)
      fail(what + ": truncated member: the file ends " + std::to_string(n - at) +
           " bytes before the member does");
    crc = crc32_bytes(crc, dst + at, static_cast<std::size_t>(got));
    at += static_cast<std::size_t>(got);
  }
  return crc;
}

}  // namespace

std::uint32_t pread_with_crc(int fd, std::uint64_t offset, std::byte* dst, std::size_t n,
                             std::uint32_t crc, const std::string& what) {
  const int parts = parallel_parts(static_cast<std::int64_t>(n), std::int64_t{8} << 20);
  std::vector<unsigned long> crcs(static_cast<std::size_t>(parts));
  std::vector<std::int64_t> sizes(crcs.size());
  parallel_for(static_cast<std::int64_t>(n), parts, [&](int k, std::int64_t b, std::int64_t e) {
    crcs[static_cast<std::size_t>(k)] = read_part(fd, offset + static_cast<std::uint64_t>(b),
                                                  dst + b, static_cast<std::size_t>(e - b), what);
    sizes[static_cast<std::size_t>(k)] = e - b;
  });
  return crc32_join(crc, crcs, sizes);
}

}  // namespace bnscope
