#pragma once
// The zip CRC-32 of large buffers on every core: parts are checksummed side by side and joined
// with zlib's crc32_combine, which gives the value one pass would.

#include <cstdint>
#include <span>
#include <vector>

namespace bnscope {

// The CRC-32 of `crc`'s bytes followed by `data` (start from 0).
std::uint32_t crc32_update(std::uint32_t crc, std::span<const std::byte> data);

// `crc` followed by consecutive parts, part k having CRC-32 part_crcs[k] (each from 0) over
// part_sizes[k] bytes.
std::uint32_t crc32_join(std::uint32_t crc, const std::vector<unsigned long>& part_crcs,
                         const std::vector<std::int64_t>& part_sizes);

}  // namespace bnscope
