#pragma once
// Storage <-> accumulation conversions: f16/bf16/f32 data accumulate in float, f64 in double.

#include "target.cuh"
// clang-format off
#include <cuda_bf16.h>
#include <cuda_fp16.h>
// clang-format on

#include "tensor/accumulate.h"

namespace bnscope::gpu::BNSCOPE_DEVICE_NS {

// The kernels name their accumulation type Acc locally (using Acc = acc_t<T>, or a template
// parameter), so the shared map is spelled acc_t here.
template <class T>
using acc_t = Acc<T>;

__device__ __forceinline__ float to_acc(__half v) {
  return __half2float(v);
}
__device__ __forceinline__ float to_acc(__nv_bfloat16 v) {
  return __bfloat162float(v);
}
__device__ __forceinline__ float to_acc(float v) {
  return v;
}
__device__ __forceinline__ double to_acc(double v) {
  return v;
}

template <class T>
__device__ __forceinline__ T from_acc(acc_t<T> v);
template <>
__device__ __forceinline__ __half from_acc<__half>(float v) {
  return __float2half_rn(v);
}
template <>
__device__ __forceinline__ __nv_bfloat16 from_acc<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}
template <>
__device__ __forceinline__ float from_acc<float>(float v) {
  return v;
}
template <>
__device__ __forceinline__ double from_acc<double>(double v) {
  return v;
}

// 1/sqrt(v): the correctly rounded form, as the CPU kernels compute it (rsqrtf is 2 ulp).
__device__ __forceinline__ float inv_sqrt(float v) {
  return 1.0f / sqrtf(v);
}
__device__ __forceinline__ double inv_sqrt(double v) {
  return 1.0 / sqrt(v);
}

}  // namespace bnscope::gpu::BNSCOPE_DEVICE_NS
