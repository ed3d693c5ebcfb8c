#pragma once
// Kernels of the blocks layout (kernels.h): channels-first tensors with small planes, block_c
// channels at a time. For one outer index a block is a contiguous row of (c1-c0)*inner elements,
// rows C*inner apart, so the rows sweeps (simd.h, with a stride) run over it with each channel's
// coefficients repeated `inner` times; a channel's partial is the in-order sum of its lanes.

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "backends/cpu/kernels.h"

namespace bnscope::cpu {

// Where block b's rows of chunk k lie.
struct BlockSpan {
  std::int64_t c0 = 0, c1 = 0;
  std::int64_t lanes = 0, stride = 0;  // elements per row, elements between rows
  std::int64_t rows = 0;
  std::int64_t base = 0;  // offset of the first row's first element
};

inline BlockSpan block_span(const Geometry& g, std::int64_t b, std::int64_t k) {
  BlockSpan s;
  s.c0 = g.block_begin(b);
  s.c1 = g.block_end(b);
  s.lanes = (s.c1 - s.c0) * g.inner;
  s.stride = g.channels * g.inner;
  const std::int64_t o0 = g.chunk_begin(k) / g.inner;
  s.rows = g.chunk_end(k) / g.inner - o0;
  s.base = o0 * s.stride + s.c0 * g.inner;
  return s;
}

// Block b's per-channel values, each repeated `inner` times, into out ([lanes]).
template <class V, class A>
void tile_block(const V& per_channel, const Geometry& g, std::int64_t b, LineVector<A>& out) {
  const std::int64_t c0 = g.block_begin(b), c1 = g.block_end(b);
  out.resize(static_cast<std::size_t>((c1 - c0) * g.inner));
  for (std::int64_t c = c0; c < c1; ++c)
    std::fill_n(out.begin() + (c - c0) * g.inner, g.inner, per_channel[c]);
}

// Tiled coefficients of one block, re-tiled only when a thread moves to another block.
template <class A>
struct BlockCoefs {
  std::int64_t block = -1;
  Affine<A> f;

  const Affine<A>& of(const Affine<A>& per_channel, const Geometry& g, std::int64_t b) {
    if (b != block) {
      tile_block(per_channel.p, g, b, f.p);
      tile_block(per_channel.q, g, b, f.q);
      tile_block(per_channel.m, g, b, f.m);
      tile_block(per_channel.r, g, b, f.r);
      f.normalize = per_channel.normalize;
      f.nan_free = per_channel.nan_free;
      block = b;
    }
    return f;
  }
};

// Each channel's `inner` accumulator lanes summed in lane order into t0[c], t1[c] (simd.h:
// fold_lanes for floats, the same loop for double: the same additions in the same order).
template <class A>
inline void fold_lanes(const A* __restrict acc0, const A* __restrict acc1, std::int64_t channels,
                       std::int64_t inner, A* __restrict t0, A* __restrict t1) {
  if constexpr (std::is_same_v<A, float>)
    simd::fold_lanes(acc0, acc1, channels, inner, t0, t1);
  else
    simd::fold_side_by_side(acc0, acc1, 0, channels, inner, 0, t0, t1);
}

// Sums of block b over chunk k into part0[c], part1[c] for the block's channels (acc0/acc1 hold
// `lanes` accumulators; mL, pL are tiled). With W, also out = p*b over the same elements.
template <Sum S, bool W, class T>
void block_reduce(const Geometry& g, const T* __restrict a, const T* __restrict b,
                  T* __restrict out, std::int64_t blk, std::int64_t k, const Acc<T>* __restrict mL,
                  const Acc<T>* __restrict pL, bool nt, Acc<T>* __restrict acc0,
                  Acc<T>* __restrict acc1, Acc<T>* part0, Acc<T>* part1) {
  using A = Acc<T>;
  const BlockSpan s = block_span(g, blk, k);
  std::fill(acc0, acc0 + s.lanes, A(0));
  std::fill(acc1, acc1 + s.lanes, A(0));
  if constexpr (simd::kVector<T>) {
    const simd::Sweep sw{simd::elem_of<T>(), S == Sum::Moments,          a + s.base,
                         b + s.base,         W ? out + s.base : nullptr, nt};
    simd::rows_sweep(sw, s.rows, s.lanes, s.stride, /*tile=*/0, mL, pL, acc0, acc1);  // simd.h
  } else {
    (void)nt;
    for (std::int64_t row = 0; row < s.rows; ++row) {
      const std::int64_t at = s.base + row * s.stride;
      for (std::int64_t j = 0; j < s.lanes; ++j) {
        const A av = load(a[at + j]), bv = load(b[at + j]);
        simd::accumulate<S == Sum::Moments>(av, bv, mL[j], acc0[j], acc1[j]);
        if constexpr (W) out[at + j] = store<T>(pL[j] * bv);
      }
    }
  }
  fold_lanes(acc0, acc1, s.c1 - s.c0, g.inner, part0 + s.c0, part1 + s.c0);
}

// out = affine(a, b) over block b's rows of chunk k, with f tiled to the block.
template <class T>
void block_write(const Geometry& g, const T* __restrict a, const T* __restrict b, T* __restrict out,
                 std::int64_t blk, std::int64_t k, const Affine<Acc<T>>& f, bool nt) {
  using A = Acc<T>;
  const BlockSpan s = block_span(g, blk, k);
  if constexpr (simd::kVector<T>) {
    simd::Sweep sw{simd::elem_of<T>(), false, a + s.base, b + s.base,
                   out + s.base,       nt,    f.normalize};
    sw.nan_free = f.nan_free;
    simd::rows_affine(sw, s.rows, s.lanes, s.stride, f.p.data(), f.q.data(), f.m.data(),
                      f.r.data());
  } else {
    (void)nt;
    for (std::int64_t row = 0; row < s.rows; ++row) {
      const std::int64_t at = s.base + row * s.stride;
      for (std::int64_t j = 0; j < s.lanes; ++j) {
        const A bv = f.normalize ? A(0) : load(b[at + j]);
        out[at + j] =
            store<T>(affine_as(f.normalize, load(a[at + j]), bv, f.p[j], f.q[j], f.m[j], f.r[j]));
      }
    }
  }
}

}  // namespace bnscope::cpu
