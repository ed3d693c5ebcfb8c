#pragma once
// The grid-wide second stage of split-M reductions: one warp per channel sums the channel's
// partials of every split in a fixed lane order. partials is [splits][C][2].

#include "warp_reduce.cuh"

namespace bnscope::gpu::BNSCOPE_DEVICE_NS {

template <class Acc, class Index>
__device__ __forceinline__ void sum_partials(const Acc* partials, int splits, Index channels,
                                             Index c, unsigned lane, Acc& s0, Acc& s1) {
  s0 = Acc(0);
  s1 = Acc(0);
  for (int s = static_cast<int>(lane); s < splits; s += 32) {
    const Acc* p = partials + (static_cast<Index>(s) * channels + c) * 2;
    s0 += p[0];
    s1 += p[1];
  }
  s0 = warp_reduce_sum(s0);
  s1 = warp_reduce_sum(s1);
}

}  // namespace bnscope::gpu::BNSCOPE_DEVICE_NS
