#pragma once
// 2-D slices of a tensor for heatmaps: the spatial plane of one (batch, channel), or the
// batch x channel plane at one spatial position. Spatial dims other than the last fold into H.

#include <QString>
#include <vector>

#include "tensor/tensor.h"

namespace bnscope {

enum class SliceMode { SpatialAtBatchChannel, BatchChannelAtSpatial };

struct TensorDims {  // the logical dims of a tensor, whatever its layout
  std::int64_t n = 1, c = 1, h = 1, w = 1;
};
TensorDims tensor_dims(const Tensor& t, bool channels_last);
TensorDims tensor_dims(const Shape& s, bool channels_last);

struct Slice2D {
  int rows = 0, cols = 0;
  std::vector<double> values;  // row-major
  QString row_label, col_label;
  double at(int r, int c) const { return values[static_cast<std::size_t>(r) * cols + c]; }
};

// SpatialAtBatchChannel: a = n, b = c; BatchChannelAtSpatial: a = h, b = w. Out-of-range indices
// are clamped.
Slice2D slice_tensor(const Tensor& t, bool channels_last, SliceMode mode, std::int64_t a,
                     std::int64_t b);

}  // namespace bnscope
