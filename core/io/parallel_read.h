#pragma once
// Reads a run of file bytes straight into its final buffer on every core, each thread taking the
// CRC-32 and, for a tensor's data, the NaN/Inf count of the pieces it has just read while they
// are still in cache.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "tensor/dtype.h"

namespace bnscope {

// What is taken of each piece.
struct PieceChecks {
  bool crc = true;
  // The NaN/Inf values of this type, dst being its first element and n a multiple of its size:
  // threads split the bytes only between elements.
  std::optional<DType> count;
  const char* noun = "member";  // what is read, in error messages
};

struct PieceTally {
  std::uint32_t crc = 0;  // `crc`'s bytes followed by the ones read (crc given back unchecked)
  std::int64_t non_finite = 0;
};

// Reads n bytes at `offset` of fd into dst. Throws Error naming `what` on a read error or when
// the file ends first.
PieceTally pread_checked(int fd, std::uint64_t offset, std::byte* dst, std::size_t n,
                         std::uint32_t crc, const PieceChecks& checks, const std::string& what);

// The CRC-32 of `crc`'s bytes followed by the n bytes read.
std::uint32_t pread_with_crc(int fd, std::uint64_t offset, std::byte* dst, std::size_t n,
                             std::uint32_t crc, const std::string& what);

}  // namespace bnscope
