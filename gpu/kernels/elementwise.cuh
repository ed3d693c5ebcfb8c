#pragma once
// out = A_c*u + B_c*(v - mu_c) + D_c over all E elements, grid-stride. coef = [A | B | D | mu].

#include "../blocks/index.cuh"
#include "../blocks/types.cuh"

namespace bnscope::gpu::BNSCOPE_DEVICE_NS {

template <class T, class Index>
__global__ void affine_kernel(DeviceView<Index> view, const T* u, const T* v, T* out,
                              const acc_t<T>* coef) {
  using Acc = acc_t<T>;
  const Index n = view.outer * view.channels * view.inner;
  const Index stride = static_cast<Index>(gridDim.x) * blockDim.x;
  const Index ch = view.channels;
  for (Index e = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x; e < n; e += stride) {
    const Index c = view.channel_of(e);
    Acc r = coef[ch + c] * (to_acc(v[e]) - coef[3 * ch + c]) + coef[2 * ch + c];
    if (u) r += coef[c] * to_acc(u[e]);
    out[e] = from_acc<T>(r);
  }
}

}  // namespace bnscope::gpu::BNSCOPE_DEVICE_NS
