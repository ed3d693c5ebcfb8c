#pragma once
// The channel blocks' fold of lanes into per-channel sums in lane order, channels side by side:
// the double path of block_kernels.h and the part of simd.h's fold_lanes that no transpose takes
// (targets below AVX2, channels short of a group of eight, lanes short of eight) share it, so the
// order of additions is written once.

#include <cstdint>

namespace bnscope::cpu {

// Lanes [from, inner) of channels [c0, c1) added into t0[c], t1[c] in lane order, the channels
// side by side (independent chains); from 0, each sum starts as its first lane (not 0 + lane,
// which turns -0 into +0).
template <class A>
inline void fold_side_by_side(const A* __restrict acc0, const A* __restrict acc1, std::int64_t c0,
                              std::int64_t c1, std::int64_t inner, std::int64_t from,
                              A* __restrict t0, A* __restrict t1) {
  if (from == 0) {
    for (std::int64_t c = c0; c < c1; ++c) {
      t0[c] = acc0[c * inner];
      t1[c] = acc1[c * inner];
    }
    from = 1;
  }
  for (std::int64_t i = from; i < inner; ++i)
    for (std::int64_t c = c0; c < c1; ++c) {
      t0[c] += acc0[c * inner + i];
      t1[c] += acc1[c * inner + i];
    }
}

}  // namespace bnscope::cpu
