#pragma once
// The zip CRC-32 of large buffers on every core: parts are checksummed side by side and joined
// with zlib's crc32_combine, which gives the value one pass would; the value is zlib's crc32.

#include <cstdint>
#include <span>
#include <vector>

namespace bnscope {

// The CRC-32 of `crc`'s bytes followed by n bytes at data, on this thread: carry-less multiply
// folding on 512-bit registers where the CPU has VPCLMULQDQ and AVX-512, on 128-bit ones where
// it has PCLMULQDQ (each several times zlib's table walk), else zlib.
std::uint32_t crc32_bytes(std::uint32_t crc, const void* data, std::size_t n);

// The ways crc32_bytes can go, narrowest first.
enum class Crc32Path { Zlib, Clmul, Vclmul512 };
// The widest this CPU runs (the one crc32_bytes takes).
Crc32Path crc32_best_path();
// crc32_bytes by `path`, or by the CPU's best where that is narrower: tests check each against
// zlib, benchmarks compare them.
std::uint32_t crc32_bytes_by(Crc32Path path, std::uint32_t crc, const void* data, std::size_t n);

// The CRC-32 of `crc`'s bytes followed by `data` (start from 0), on every core.
std::uint32_t crc32_update(std::uint32_t crc, std::span<const std::byte> data);

// `crc` followed by consecutive parts, part k having CRC-32 part_crcs[k] (each from 0) over
// part_sizes[k] bytes.
std::uint32_t crc32_join(std::uint32_t crc, const std::vector<unsigned long>& part_crcs,
                         const std::vector<std::int64_t>& part_sizes);

}  // namespace bnscope
