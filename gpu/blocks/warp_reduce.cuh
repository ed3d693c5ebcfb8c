#pragma once
// Sum over the 32 lanes of a warp with a fixed butterfly, so the result is bitwise the same on
// every run (no atomics anywhere in bnscope's reductions).

#include "target.cuh"

namespace bnscope::gpu::BNSCOPE_DEVICE_NS {

template <class Acc>
__device__ __forceinline__ Acc warp_reduce_sum(Acc v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

}  // namespace bnscope::gpu::BNSCOPE_DEVICE_NS
