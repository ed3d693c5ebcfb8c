#include "heatmap_slice.h"

#include <algorithm>

#include "tensor_axes.h"

namespace bnscope {

TensorDims tensor_dims(const Tensor& t, bool channels_last) {
  return tensor_dims(t.shape(), channels_last);
}

TensorDims tensor_dims(const Shape& s, bool channels_last) {
  TensorDims d;
  const AxisRoles r = axis_roles(s.size(), channels_last);
  if (r.batch) d.n = s[*r.batch];
  if (r.channel) d.c = s[*r.channel];
  if (!r.spatial.empty()) {
    d.w = s[r.spatial.back()];
    for (std::size_t k = 0; k + 1 < r.spatial.size(); ++k) d.h *= s[r.spatial[k]];
  }
  return d;
}

Slice2D slice_tensor(const Tensor& t, bool channels_last, SliceMode mode, std::int64_t a,
                     std::int64_t b) {
  Slice2D out;
  const TensorDims d = tensor_dims(t, channels_last);
  if (t.numel() == 0 || d.n * d.c * d.h * d.w != t.numel()) return out;
  const std::int64_t hw = d.h * d.w;
  auto at = [&](std::int64_t n, std::int64_t c, std::int64_t s) {
    const std::int64_t i = channels_last ? (n * hw + s) * d.c + c : (n * d.c + c) * hw + s;
    return t.get(i);
  };
  if (mode == SliceMode::SpatialAtBatchChannel) {
    const std::int64_t n = std::clamp<std::int64_t>(a, 0, d.n - 1);
    const std::int64_t c = std::clamp<std::int64_t>(b, 0, d.c - 1);
    out.rows = static_cast<int>(d.h);
    out.cols = static_cast<int>(d.w);
    for (std::int64_t s = 0; s < hw; ++s) out.values.push_back(at(n, c, s));
    out.row_label = QStringLiteral("h");
    out.col_label = QStringLiteral("w");
  } else {
    const std::int64_t h = std::clamp<std::int64_t>(a, 0, d.h - 1);
    const std::int64_t w = std::clamp<std::int64_t>(b, 0, d.w - 1);
    out.rows = static_cast<int>(d.n);
    out.cols = static_cast<int>(d.c);
    for (std::int64_t n = 0; n < d.n; ++n)
      for (std::int64_t c = 0; c < d.c; ++c) out.values.push_back(at(n, c, h * d.w + w));
    out.row_label = QStringLiteral("n");
    out.col_label = QStringLiteral("c");
  }
  return out;
}

}  // namespace bnscope
