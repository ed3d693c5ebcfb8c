#include "cudnn_dims.h"

namespace bnscope::gpu {

CudnnDims cudnn_dims(const Prepared& p) {
  CudnnDims d;
  const std::int64_t n = p.inputs[0].rank() > 0 ? p.inputs[0].dim(0) : 1;
  d.c = p.view.channels;
  if (p.channels_last) {  // [N, spatial..., C]: outer = N * spatial
    d.n = n;
    d.h = n > 0 ? p.view.outer / n : 0;
  } else {  // [N, C, spatial...]: outer = N, inner = spatial
    d.n = p.view.outer;
    d.h = p.view.inner;
  }
  return d;
}

}  // namespace bnscope::gpu
