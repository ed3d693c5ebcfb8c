#pragma once
// .npy files (numpy's array format), versions 1.0, 2.0 and 3.0.
//
// Reading: float16/32/64 load as such; int8..int64, uint8..uint64 and bool load as float64
// (integers beyond 2^53 round). Both byte orders are read. Fortran-order arrays are transposed to
// bnscope's row-major order on load. Complex, object, string, date and structured types are
// rejected. Every malformed file (truncated, lying or absurd shapes, bad header syntax) gives an
// Error naming the file; the data size is checked against the bytes actually present before
// anything is allocated.
//
// bfloat16: numpy has no builtin bfloat16, and np.save of an ml_dtypes.bfloat16 array writes the
// descr '<V2' (a raw 2-byte void). bnscope reads a 2-byte void as bfloat16 and writes bfloat16
// tensors as '<V2', so in Python `np.load(f).view(ml_dtypes.bfloat16)` gives the values back.
//
// Writing: little-endian, C order, format 1.0 (2.0 only for a header over 64 KiB), header padded
// to 64 bytes as numpy does.

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tensor/tensor.h"

namespace bnscope {

// `what` names the source (a path, or "archive.npz:member") in error messages.
Tensor parse_npy(std::span<const std::byte> bytes, std::string_view what);
Tensor read_npy(const std::string& path);
std::vector<std::byte> serialize_npy(const Tensor& t);
void write_npy(const std::string& path, const Tensor& t);  // atomic

// The whole file, with an Error naming it when it cannot be read.
std::vector<std::byte> read_file_bytes(const std::string& path);

}  // namespace bnscope
