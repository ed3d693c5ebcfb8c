#pragma once
// cuDNN's 4-D view of x as TensorFlow builds it: 5-D inputs merge their last two spatial
// dimensions, so [N,D,H,W,C] is N x C x (D*H*W) x 1 in NHWC and [N,C,D,H,W] likewise in NCHW.

#include <cstdint>

#include "ops/prepared.h"

namespace bnscope::gpu {

struct CudnnDims {
  std::int64_t n = 0, c = 0, h = 0, w = 1;
};
CudnnDims cudnn_dims(const Prepared& p);

// Whether TensorFlow hands cuDNN the data in NHWC. It does for inference, and for training and
// its gradient only under TF_USE_CUDNN_BATCHNORM_SPATIAL_PERSISTENT with half or bfloat16 data
// and V3; any other NHWC call is transposed to NCHW on the GPU first and its result transposed
// back. NCHW data is always handed over as it is.
bool cudnn_takes_nhwc(const Prepared& p, bool persistent);

}  // namespace bnscope::gpu
