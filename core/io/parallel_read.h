#pragma once
// Reads a run of file bytes straight into its final buffer on every core, each thread taking the
// CRC-32 of the pieces it has just read while they are still in cache.

#include <cstddef>
#include <cstdint>
#include <string>

namespace bnscope {

// Reads n bytes at `offset` of fd into dst; returns the CRC-32 of `crc`'s bytes followed by them.
// Throws Error naming `what` on a read error or when the file ends first.
std::uint32_t pread_with_crc(int fd, std::uint64_t offset, std::byte* dst, std::size_t n,
                             std::uint32_t crc, const std::string& what);

}  // namespace bnscope
