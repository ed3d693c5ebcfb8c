#include "io/crc32.h"

#include <zlib.h>

#include <algorithm>
#include <vector>

#include "tensor/parallel.h"

namespace bnscope {

namespace {

uLong crc_serial(uLong crc, const Bytef* p, std::size_t left) {
  while (left) {
    const auto n = static_cast<uInt>(std::min<std::size_t>(left, 1u << 30));
    crc = crc32(crc, p, n);
    p += n;
    left -= n;
  }
  return crc;
}

}  // namespace

std::uint32_t crc32_update(std::uint32_t crc, std::span<const std::byte> data) {
  const auto* p = reinterpret_cast<const Bytef*>(data.data());
  const auto n = static_cast<std::int64_t>(data.size());
  const int parts = parallel_parts(n, std::int64_t{8} << 20);
  if (parts == 1) return static_cast<std::uint32_t>(crc_serial(crc, p, data.size()));
  std::vector<uLong> crcs(static_cast<std::size_t>(parts));
  std::vector<std::int64_t> sizes(crcs.size());
  parallel_for(n, parts, [&](int k, std::int64_t b, std::int64_t e) {
    crcs[static_cast<std::size_t>(k)] =
        crc_serial(crc32(0, nullptr, 0), p + b, static_cast<std::size_t>(e - b));
    sizes[static_cast<std::size_t>(k)] = e - b;
  });
  return crc32_join(crc, crcs, sizes);
}

std::uint32_t crc32_join(std::uint32_t crc, const std::vector<unsigned long>& part_crcs,
                         const std::vector<std::int64_t>& part_sizes) {
  uLong out = crc;
  for (std::size_t k = 0; k < part_crcs.size(); ++k)
    out = crc32_combine(out, part_crcs[k], static_cast<z_off_t>(part_sizes[k]));
  return static_cast<std::uint32_t>(out);
}

}  // namespace bnscope
