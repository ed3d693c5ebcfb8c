#pragma once
// The .npy header: magic, version, and the Python dict literal that names descr, fortran_order
// and shape. The parser is strict: it accepts the literals numpy writes and rejects anything
// else with a one-line message that names the file.

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include "tensor/dtype.h"
#include "tensor/shape.h"

namespace bnscope {

struct NpyDescr {
  // Int, UInt, Bool and Complex are recognised only so readers can refuse them by name.
  enum class Kind { Float, Int, UInt, Bool, BFloat16, Complex };
  Kind kind = Kind::Float;
  int itemsize = 4;
  bool big_endian = false;
  std::string text;  // as written in the file, for messages

  // The tensor dtype of a float kind (F64 for the kinds that are refused).
  DType target() const;
};

struct NpyHeader {
  int major = 1;
  NpyDescr descr;
  bool fortran_order = false;
  Shape shape;
  std::size_t data_offset = 0;  // where the array data starts
};

// `what` names the file (or archive member) in error messages.
NpyDescr parse_npy_descr(std::string_view descr, std::string_view what);
NpyHeader parse_npy_header(std::span<const std::byte> bytes, std::string_view what);

}  // namespace bnscope
