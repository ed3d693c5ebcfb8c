#include "tensor/shape.h"

#include "tensor/error.h"

namespace bnscope {

std::int64_t num_elements(const Shape& shape) {
  std::int64_t n = 1;
  for (std::int64_t d : shape) {
    if (d < 0) fail("negative dimension in shape " + shape_str(shape));
    if (d != 0 && n > INT64_MAX / d)
      fail("shape " + shape_str(shape) + " has more than 2^63 elements");
    n *= d;
  }
  return n;
}

std::string shape_str(const Shape& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

}  // namespace bnscope
