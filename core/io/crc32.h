#pragma once
// The zip CRC-32 of large buffers on every core: parts are checksummed side by side and joined
// with zlib's crc32_combine, which gives the value one pass would.

#include <cstdint>
#include <span>

namespace bnscope {

// The CRC-32 of `crc`'s bytes followed by `data` (start from 0).
std::uint32_t crc32_update(std::uint32_t crc, std::span<const std::byte> data);

}  // namespace bnscope
