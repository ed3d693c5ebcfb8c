// Pass structure: one sweep (read x and dy, write dx in the same loop).
//
// Freeze-mode fused grads and BatchNormWithGlobalNormalizationGrad have dx = dy·γ·rsqrt(v+ε),
// which needs no reduction, so the two per-channel sums (Σdy, Σdy·(x-m)) are accumulated in the
// same loop that writes dx: 3 tensor passes, the minimum (dx non-temporal when large, so no
// read-for-ownership). Chunks and partials are as in reduce_pass (kernels.h), so the sums do not
// depend on the thread count.

#include "backends/cpu/block_kernels.h"
#include "backends/cpu/passes.h"

namespace bnscope::cpu {

namespace {

// Blocks layout: (block, chunk) items as in reduce_pass.
template <class T>
void single_pass_blocks(const Exec& ex, const Geometry& g, const T* x, const T* dy, T* dx,
                        const std::vector<Acc<T>>& mean, const std::vector<Acc<T>>& p,
                        Partials<Acc<T>>& parts) {
  using A = Acc<T>;
  const std::int64_t items = g.block_count() * g.chunks;
  const int n = threads_for(ex, items);
  ItemQueue queue(items, n);
  ex.pool->run(n, [&](int t) {
    LaneArrays<A> acc(g.block_c * g.inner, 2);
    LineVector<A> mB, pB;
    A* acc0 = acc[0];
    A* acc1 = acc[1];
    std::int64_t tiled = -1;
    for (std::int64_t item; (item = queue.next(t)) >= 0;) {
      const std::int64_t blk = item / g.chunks, k = item % g.chunks;
      if (blk != tiled) {
        tile_block(mean, g, blk, mB);
        tile_block(p, g, blk, pB);
        tiled = blk;
      }
      block_reduce<Sum::Grad, true, T>(g, x, dy, dx, blk, k, mB.data(), pB.data(), ex.nt, acc0,
                                       acc1, parts.s0 + k * g.channels, parts.s1 + k * g.channels);
    }
    stream_fence();
  });
}

}  // namespace

template <class T>
Totals single_pass(const Exec& ex, const Geometry& g, const T* x, const T* dy, T* dx,
                   const std::vector<Acc<T>>& mean, const std::vector<Acc<T>>& p) {
  using A = Acc<T>;
  Partials<A> parts(g, *ex.scratch);
  if (g.blocks()) {
    single_pass_blocks<T>(ex, g, x, dy, dx, mean, p, parts);
    return combine(ex, g, parts);
  }
  const LineVector<A> mL = tile(mean, g), pL = tile(p, g);
  const std::int64_t items = g.rows() ? g.chunks : g.chunks * g.channels;  // as reduce_pass
  const int n = threads_for(ex, items);
  const RowsWalk walk = rows_walk(ex.host, g.lanes(), sizeof(T), read_bytes(g, sizeof(T)), true);
  ItemQueue queue(items, n);
  ex.pool->run(n, [&](int t) {
    LaneArrays<A> lanes(g.rows() ? g.lanes() : 0, 4);
    const A* m_t = g.rows() ? lanes.copy(2, mL) : nullptr;
    const A* p_t = g.rows() ? lanes.copy(3, pL) : nullptr;
    std::vector<T> tmp(ex.nt ? static_cast<std::size_t>(kBlock) : 0);
    T* staging = ex.nt ? tmp.data() : nullptr;
    for (std::int64_t item; (item = queue.next(t)) >= 0;) {
      if (g.rows()) {
        rows_reduce<Sum::Grad, true, T>(g, x, dy, dx, g.chunk_begin(item), g.chunk_end(item), m_t,
                                        p_t, lanes[0], lanes[1], staging,
                                        parts.s0 + item * g.channels, parts.s1 + item * g.channels,
                                        walk.tile, true, walk.prefetch);
      } else {
        const std::int64_t c = item / g.chunks, k = item % g.chunks;
        plane_reduce<Sum::Grad, true, T>(g, x, dy, dx, g.chunk_begin(k), g.chunk_end(k), c, mean[c],
                                         p[c], staging, parts.s0[k * g.channels + c],
                                         parts.s1[k * g.channels + c]);
      }
    }
    stream_fence();
  });
  return combine(ex, g, parts);
}

#define BNSCOPE_INSTANTIATE(T)                                                         \
  template Totals single_pass<T>(const Exec&, const Geometry&, const T*, const T*, T*, \
                                 const std::vector<Acc<T>>&, const std::vector<Acc<T>>&);
BNSCOPE_CPU_ELEMENT_TYPES(BNSCOPE_INSTANTIATE)
#undef BNSCOPE_INSTANTIATE

}  // namespace bnscope::cpu
