#pragma once
// Sums two per-thread accumulators over threadIdx.y for each column threadIdx.x (a channel) and
// leaves the totals in every thread of the column. blockDim.y is a power of two (the planner's
// block shapes). Shared memory: 2 * blockDim.x * blockDim.y accumulators.
//
// blockDim.x == 1 (one channel per CTA): warps shuffle first, then one warp folds the per-warp
// sums. blockDim.x > 1: lanes hold different channels, so a shared-memory tree over y.

#include "warp_reduce.cuh"

namespace bnscope::gpu::BNSCOPE_DEVICE_NS {

// smem: an Acc* into shared memory (dynamic_shared<Acc>() of shared.cuh).
template <class Acc, class SharedPtr>
__device__ __forceinline__ void block_reduce_y(Acc& s0, Acc& s1, SharedPtr smem) {
  const unsigned bx = blockDim.x, by = blockDim.y, tx = threadIdx.x, ty = threadIdx.y;
  if (bx == 1) {
    s0 = warp_reduce_sum(s0);
    s1 = warp_reduce_sum(s1);
    const unsigned warps = (by + 31) / 32, warp = ty / 32, lane = ty % 32;
    if (lane == 0) {
      smem[warp] = s0;
      smem[32 + warp] = s1;
    }
    __syncthreads();
    if (warp == 0) {
      s0 = lane < warps ? smem[lane] : Acc(0);
      s1 = lane < warps ? smem[32 + lane] : Acc(0);
      s0 = warp_reduce_sum(s0);
      s1 = warp_reduce_sum(s1);
      if (lane == 0) {
        smem[0] = s0;
        smem[32] = s1;
      }
    }
    __syncthreads();
    s0 = smem[0];
    s1 = smem[32];
    __syncthreads();  // smem may be reused by the caller
    return;
  }
  const SharedPtr a = smem;
  const SharedPtr b = smem + bx * by;
  a[ty * bx + tx] = s0;
  b[ty * bx + tx] = s1;
  __syncthreads();
  for (unsigned stride = by / 2; stride > 0; stride >>= 1) {
    if (ty < stride) {
      a[ty * bx + tx] += a[(ty + stride) * bx + tx];
      b[ty * bx + tx] += b[(ty + stride) * bx + tx];
    }
    __syncthreads();
  }
  s0 = a[tx];
  s1 = b[tx];
  __syncthreads();
}

}  // namespace bnscope::gpu::BNSCOPE_DEVICE_NS
