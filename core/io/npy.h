#pragma once
// .npy files (numpy's array format), versions 1.0, 2.0 and 3.0.
//
// Reading: float16/32/64 load as such. Integers, bool and complex are refused by name
// (UnsupportedDTypeError): no TensorFlow kernel of these ops takes them, and reading them as
// floats would hide that. Both byte orders are read. Fortran-order arrays are transposed to
// bnscope's row-major order on load. Object, string, date and structured types are rejected.
// Every malformed file (truncated, lying or absurd shapes, bad header syntax) gives an Error
// naming the file; the data size is checked against the bytes actually present before
// anything is allocated, and so is the memory limit. Data is read straight into the tensor's
// buffer (not mapped: a file rewritten in place must not pull pages from under a session).
//
// bfloat16: numpy has no builtin bfloat16, and np.save of an ml_dtypes.bfloat16 array writes the
// descr '<V2' (a raw 2-byte void). bnscope reads a 2-byte void as bfloat16 and writes bfloat16
// tensors as '<V2', so in Python `np.load(f).view(ml_dtypes.bfloat16)` gives the values back.
//
// Writing: little-endian, C order, format 1.0 (2.0 only for a header over 64 KiB), header padded
// to 64 bytes as numpy does.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "io/npy_header.h"
#include "tensor/error.h"
#include "tensor/tensor.h"

namespace bnscope {

// An integer or bool array, refused with the numpy name of its dtype so callers can say which
// input it was and what the op takes.
class UnsupportedDTypeError : public Error {
 public:
  UnsupportedDTypeError(const std::string& message, std::string dtype)
      : Error(ErrorCode::InvalidArgument, message), dtype_(std::move(dtype)) {}
  const std::string& dtype() const { return dtype_; }

 private:
  std::string dtype_;
};

// Fills up to n bytes and returns how many; 0 at the end of the data.
using ByteSource = std::function<std::size_t(std::byte*, std::size_t)>;

struct NpyLayout {
  NpyHeader header;
  std::uint64_t data_bytes = 0;
};
// Reads the header from a source of `size` bytes and checks, before any data is read, that the
// data it declares is exactly what is left and fits in the memory limit.
NpyLayout read_npy_layout(std::uint64_t size, const ByteSource& read, std::string_view what);
// Reads exactly n bytes of data into dst (dst the tensor's first element, n its whole size),
// throwing when they end first, and returns the NaN/Inf count of the values of `dtype` among them,
// taken piece by piece while each is in cache.
using CountingSource = std::function<std::int64_t(std::byte* dst, std::size_t n, DType dtype)>;
// Reads the data that follows into a tensor allocated for it. With `counting` (for data in the
// host's byte order), through it, and the tensor then knows its NaN/Inf count
// (Tensor::known_non_finite) without another pass.
Tensor read_npy_data(const NpyLayout& layout, const ByteSource& read, std::string_view what,
                     const CountingSource& counting = {});
Tensor read_npy_source(std::uint64_t size, const ByteSource& read, std::string_view what);

// `what` names the source (a path, or "archive.npz:member") in error messages.
Tensor parse_npy(std::span<const std::byte> bytes, std::string_view what);
Tensor read_npy(const std::string& path);
std::string npy_header_bytes(const Tensor& t);  // magic, version, padded header
// The same for a tensor of that dtype and shape that is not held whole.
std::string npy_header_bytes(DType dtype, const Shape& shape);
std::vector<std::byte> serialize_npy(const Tensor& t);
// Header, then the data straight from the tensor's buffer.
void write_npy_to(std::FILE* f, const Tensor& t, const std::string& what);
void write_npy(const std::string& path, const Tensor& t);  // atomic

// The whole file, with an Error naming it when it cannot be read (or is a directory).
std::vector<std::byte> read_file_bytes(const std::string& path);
// Throws the error reading `path` would give when it is missing, unreadable or a directory.
void check_input_file(const std::string& path);

}  // namespace bnscope
