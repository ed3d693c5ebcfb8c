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

bool cudnn_takes_nhwc(const Prepared& p, bool persistent) {
  if (!p.channels_last) return false;
  if (!p.op->is_grad && !p.is_training) return true;
  const bool sixteen_bit = p.t == DType::F16 || p.t == DType::BF16;
  return persistent && sixteen_bit && p.op->version == 3;
}

}  // namespace bnscope::gpu
