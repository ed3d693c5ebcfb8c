#pragma once
// Shapes and their element counts, checked against overflow.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace bnscope {

using Shape = std::vector<std::int64_t>;

// Product of the dimensions; throws Error(InvalidArgument) on a negative dimension or on a count
// that does not fit in int64.
std::int64_t num_elements(const Shape& shape);
// TensorFlow's DebugString form: [2,1], [] for a scalar.
std::string shape_str(const Shape& shape);
// A dimension or index already checked non-negative, as a container index.
inline std::size_t uc(std::int64_t v) {
  return static_cast<std::size_t>(v);
}

}  // namespace bnscope
