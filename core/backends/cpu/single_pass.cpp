// Pass structure: one sweep (read x and dy, write dx in the same loop).
//
// Freeze-mode fused grads and BatchNormWithGlobalNormalizationGrad have dx = dy·γ·rsqrt(v+ε),
// which needs no reduction, so the two per-channel sums (Σdy, Σdy·(x-m)) are accumulated in the
// same loop that writes dx: 3 tensor passes, the minimum (dx non-temporal when large, so no
// read-for-ownership). Chunks and partials are as in reduce_pass (kernels.h), so the sums do not
// depend on the thread count.

#include "backends/cpu/passes.h"

namespace bnscope::cpu {

template <class T>
Totals single_pass(const Exec& ex, const Geometry& g, const T* x, const T* dy, T* dx,
                   const std::vector<Acc<T>>& mean, const std::vector<Acc<T>>& p) {
  using A = Acc<T>;
  Partials<A> parts;
  parts.resize(g);
  const std::vector<A> mL = tile(mean, g), pL = tile(p, g);
  const std::int64_t items = g.rows() ? g.chunks : g.chunks * g.channels;  // as reduce_pass
  const int n = threads_for(ex, items);
  ex.pool->run(n, [&](int t) {
    const Span span = split_range(items, n, t);
    std::vector<A> acc(g.rows() ? static_cast<std::size_t>(2 * g.lanes()) : 0);
    std::vector<T> tmp(ex.nt ? static_cast<std::size_t>(kBlock) : 0);
    T* staging = ex.nt ? tmp.data() : nullptr;
    for (std::int64_t item = span.begin; item < span.end; ++item) {
      if (g.rows()) {
        rows_reduce<Sum::Grad, true, T>(g, x, dy, dx, g.chunk_begin(item), g.chunk_end(item),
                                        mL.data(), pL.data(), acc.data(), acc.data() + g.lanes(),
                                        staging, parts.s0.data() + item * g.channels,
                                        parts.s1.data() + item * g.channels);
      } else {
        const std::int64_t c = item / g.chunks, k = item % g.chunks;
        plane_reduce<Sum::Grad, true, T>(g, x, dy, dx, g.chunk_begin(k), g.chunk_end(k), c, mean[c],
                                         p[c], staging, parts.s0[k * g.channels + c],
                                         parts.s1[k * g.channels + c]);
      }
    }
    stream_fence();
  });
  Totals totals;
  totals.s0.resize(static_cast<std::size_t>(g.channels));
  totals.s1.resize(totals.s0.size());
  for (std::int64_t c = 0; c < g.channels; ++c) {
    totals.s0[c] = parts.total0(g, c);
    totals.s1[c] = parts.total1(g, c);
  }
  return totals;
}

#define BNSCOPE_INSTANTIATE(T)                                                         \
  template Totals single_pass<T>(const Exec&, const Geometry&, const T*, const T*, T*, \
                                 const std::vector<Acc<T>>&, const std::vector<Acc<T>>&);
BNSCOPE_INSTANTIATE(f16)
BNSCOPE_INSTANTIATE(bf16)
BNSCOPE_INSTANTIATE(float)
BNSCOPE_INSTANTIATE(double)
#undef BNSCOPE_INSTANTIATE

}  // namespace bnscope::cpu
