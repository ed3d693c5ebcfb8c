#include "diff/element_errors.h"

#include <algorithm>
#include <cmath>

#include "tensor_axes.h"

namespace bnscope {

Tensor error_tensor(const OutputTensor& reference, const OutputTensor& candidate) {
  if (reference.tensor.shape() != candidate.tensor.shape()) return {};
  const std::vector<double> a = reference.tensor.to_doubles();
  const std::vector<double> b = candidate.tensor.to_doubles();
  std::vector<double> e(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    const bool na = std::isnan(a[i]), nb = std::isnan(b[i]);
    e[i] = na && nb ? 0.0 : na != nb ? std::nan("") : std::fabs(a[i] - b[i]);
  }
  return Tensor::from_doubles(DType::F64, reference.tensor.shape(), e);
}

Slice2D error_slice(const OutputTensor& reference, const OutputTensor& candidate,
                    bool channels_last, SliceMode mode, std::int64_t a, std::int64_t b) {
  if (reference.tensor.shape() != candidate.tensor.shape()) return {};
  Slice2D e = slice_tensor(reference.tensor, channels_last, mode, a, b);
  const Slice2D c = slice_tensor(candidate.tensor, channels_last, mode, a, b);
  for (std::size_t i = 0; i < e.values.size() && i < c.values.size(); ++i) {
    const double x = e.values[i], y = c.values[i];
    const bool na = std::isnan(x), nb = std::isnan(y);
    e.values[i] = na && nb ? 0.0 : na != nb ? std::nan("") : std::fabs(x - y);
  }
  return e;
}

ElementPlace element_place(const Shape& shape, const std::vector<std::int64_t>& coords,
                           bool channels_last) {
  ElementPlace p;
  if (shape.empty() || coords.size() != shape.size()) return p;
  const AxisRoles r = axis_roles(shape.size(), channels_last);
  if (r.batch) p.n = coords[*r.batch];
  p.c = coords[*r.channel];
  if (r.spatial.empty()) return p;
  // The rows fold every spatial axis but the last, row-major, as tensor_dims() counts them.
  p.w = coords[r.spatial.back()];
  for (std::size_t k = 0; k + 1 < r.spatial.size(); ++k)
    p.h = p.h * shape[r.spatial[k]] + coords[r.spatial[k]];
  return p;
}

}  // namespace bnscope
