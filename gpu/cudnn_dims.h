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

}  // namespace bnscope::gpu
