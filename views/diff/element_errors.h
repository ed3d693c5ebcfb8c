#pragma once
// The element-level errors the Diff tab's heatmap and worst-elements list read, without Qt: the
// comparison itself is core's (analysis/outcome.h).

#include <cstdint>
#include <vector>

#include "heatmap_slice.h"
#include "ops/result.h"

namespace bnscope {

// |candidate - reference| per element as float64 (NaN where exactly one side is NaN, 0 where
// both are); an empty tensor when the shapes differ.
Tensor error_tensor(const OutputTensor& reference, const OutputTensor& candidate);

// |candidate - reference| of one 2-D slice of the two outputs (slice_tensor's terms), by the
// same rule as error_tensor: the heatmap reads the error of what it shows, never of the whole
// tensor. Empty when the shapes differ.
Slice2D error_slice(const OutputTensor& reference, const OutputTensor& candidate,
                    bool channels_last, SliceMode mode, std::int64_t a, std::int64_t b);

// Where an element of an output sits in the heatmap's terms (batch, channel, folded spatial
// row, column), consistent with tensor_dims() and slice_tensor().
struct ElementPlace {
  std::int64_t n = 0, c = 0, h = 0, w = 0;
};
ElementPlace element_place(const Shape& shape, const std::vector<std::int64_t>& coords,
                           bool channels_last);

}  // namespace bnscope
