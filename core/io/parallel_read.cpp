#include "io/parallel_read.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "io/crc32.h"
#include "tensor/error.h"
#include "tensor/non_finite.h"
#include "tensor/parallel.h"

namespace bnscope {

namespace {

constexpr std::size_t kPiece = std::size_t{256} << 10;  // read, then checked from cache

// The CRC-32 (from 0) and NaN/Inf count of n bytes read at offset into dst. A short read may end
// inside an element: its bytes are counted with the next piece, while still in cache.
PieceTally read_part(int fd, std::uint64_t offset, std::byte* dst, std::size_t n,
                     const PieceChecks& checks, const std::string& what) {
  PieceTally t;
  const std::size_t size = checks.count ? dtype_size(*checks.count) : 1;
  std::size_t at = 0, counted = 0;
  while (at < n) {
    const std::size_t want = std::min(kPiece, n - at);
    const ssize_t got = ::pread(fd, dst + at, want, static_cast<off_t>(offset + at));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) fail(what + ": cannot read the " + checks.noun + ": " + std::strerror(errno));
    if (got == 0)
      fail(what + ": truncated " + checks.noun + ": the file ends " + std::to_string(n - at) +
           " bytes before the " + checks.noun + " does");
    if (checks.crc) t.crc = crc32_bytes(t.crc, dst + at, static_cast<std::size_t>(got));
    at += static_cast<std::size_t>(got);
    if (checks.count) {
      const std::size_t whole = (at - counted) / size;
      t.non_finite +=
          count_non_finite(*checks.count, dst + counted, static_cast<std::int64_t>(whole));
      counted += whole * size;
    }
  }
  return t;
}

}  // namespace

PieceTally pread_checked(int fd, std::uint64_t offset, std::byte* dst, std::size_t n,
                         std::uint32_t crc, const PieceChecks& checks, const std::string& what) {
  // Parts are whole elements: a thread never counts half of one.
  const std::size_t size = checks.count ? dtype_size(*checks.count) : 1;
  if (n % size)
    throw Error(ErrorCode::Internal,
                what + ": " + std::to_string(n) + " bytes do not split into whole elements");
  const auto units = static_cast<std::int64_t>(n / size);
  const int parts =
      parallel_parts(units, (std::int64_t{8} << 20) / static_cast<std::int64_t>(size));
  std::vector<PieceTally> tallies(static_cast<std::size_t>(parts));
  std::vector<std::int64_t> sizes(tallies.size());
  parallel_for(units, parts, [&](int k, std::int64_t b, std::int64_t e) {
    const auto from = static_cast<std::size_t>(b) * size,
               bytes = static_cast<std::size_t>(e - b) * size;
    tallies[static_cast<std::size_t>(k)] =
        read_part(fd, offset + from, dst + from, bytes, checks, what);
    sizes[static_cast<std::size_t>(k)] = static_cast<std::int64_t>(bytes);
  });
  PieceTally out;
  std::vector<unsigned long> crcs;
  for (const PieceTally& t : tallies) {
    crcs.push_back(t.crc);
    out.non_finite += t.non_finite;
  }
  out.crc = checks.crc ? crc32_join(crc, crcs, sizes) : crc;
  return out;
}

std::uint32_t pread_with_crc(int fd, std::uint64_t offset, std::byte* dst, std::size_t n,
                             std::uint32_t crc, const std::string& what) {
  return pread_checked(fd, offset, dst, n, crc, PieceChecks{}, what).crc;
}

}  // namespace bnscope
