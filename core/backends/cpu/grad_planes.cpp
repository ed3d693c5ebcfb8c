// Pass structure: channels-first training grads, a channel plane at a time. A thread that owns
// whole channels reduces a plane and writes its dx while x and dy are still in its caches: 3
// tensor passes instead of 5, where a plane fits what a core keeps (planner.h: planes_fit) and
// there are as many channels as threads. The plane is reduced chunk by chunk as reduce_pass
// does it, so the bits are the two-pass structure's. Small planes (7x7) go a channel block at a
// time (block_kernels.h): one long run per image rather than dozens of short ones. Threads keep
// a static share of the planes: handed out as items they cost more in quiet minutes than they
// gained beside a busy process (docs/measurements/cpu-kernel-notes.md).

#include "backends/cpu/block_kernels.h"
#include "backends/cpu/passes.h"

namespace bnscope::cpu {

namespace {

// Blocks layout: a thread owns whole blocks; each is reduced chunk by chunk (the partials of
// reduce_pass, combined in the same order) and then written while its x and dy are in L2.
template <class T>
Totals blocks_pass(const Exec& ex, const Geometry& g, const T* x, const T* dy, T* dx,
                   const std::vector<Acc<T>>& mean, const ChannelCoefs& coefs) {
  using A = Acc<T>;
  Totals totals;
  totals.s0.resize(static_cast<std::size_t>(g.channels));
  totals.s1.resize(totals.s0.size());
  const int n = threads_for(ex, g.block_count());
  ex.pool->run(n, [&](int t) {
    const Span span = split_range(g.block_count(), n, t);
    const std::size_t lanes = static_cast<std::size_t>(g.block_c * g.inner);
    LaneArrays<A> acc(static_cast<std::int64_t>(lanes), 2);
    std::vector<A> part0(static_cast<std::size_t>(g.channels)), part1(part0);
    Affine<A> f;
    f.p.resize(static_cast<std::size_t>(g.channels));
    f.q = f.r = f.p;
    f.m.assign(mean.begin(), mean.end());
    // Tiles kept by the thread for every block it takes, not allocated, zeroed and released per
    // block.
    LineVector<A> mB;
    BlockCoefs<A> tiled;
    for (std::int64_t blk = span.begin; blk < span.end; ++blk) {
      tile_block(mean, g, blk, mB);
      const std::int64_t c0 = g.block_begin(blk), c1 = g.block_end(blk);
      for (std::int64_t k = 0; k < g.chunks; ++k) {
        block_reduce<Sum::Grad, false, T>(g, x, dy, nullptr, blk, k, mB.data(), nullptr, false,
                                          acc[0], acc[1], part0.data(), part1.data());
        for (std::int64_t c = c0; c < c1; ++c) {
          totals.s0[c] += static_cast<double>(part0[c]);
          totals.s1[c] += static_cast<double>(part1[c]);
        }
      }
      for (std::int64_t c = c0; c < c1; ++c) {
        double p, q, r;
        coefs(c, totals.s0[c], totals.s1[c], p, q, r);
        f.p[c] = static_cast<A>(p);
        f.q[c] = static_cast<A>(q);
        f.r[c] = static_cast<A>(r);
      }
      f.nan_free = grad_coefs_nan_free(f, c0, c1);
      const Affine<A>& fb = tiled.of(f, g, blk);
      for (std::int64_t k = 0; k < g.chunks; ++k) block_write<T>(g, x, dy, dx, blk, k, fb, ex.nt);
    }
    stream_fence();
  });
  return totals;
}

}  // namespace

template <class T>
Totals planes_pass(const Exec& ex, const Geometry& g, const T* x, const T* dy, T* dx,
                   const std::vector<Acc<T>>& mean, const ChannelCoefs& coefs) {
  using A = Acc<T>;
  if (g.blocks()) return blocks_pass<T>(ex, g, x, dy, dx, mean, coefs);
  Totals totals;
  totals.s0.resize(static_cast<std::size_t>(g.channels));
  totals.s1.resize(totals.s0.size());
  const int n = threads_for(ex, g.channels);
  ex.pool->run(n, [&](int t) {
    const Span span = split_range(g.channels, n, t);
    Affine<A> f;
    f.p.resize(static_cast<std::size_t>(g.channels));
    f.q = f.r = f.p;
    f.m.assign(mean.begin(), mean.end());
    for (std::int64_t c = span.begin; c < span.end; ++c) {
      double s0 = 0, s1 = 0;
      for (std::int64_t k = 0; k < g.chunks; ++k) {
        A p0, p1;
        plane_reduce<Sum::Grad, false, T>(g, x, dy, nullptr, g.chunk_begin(k), g.chunk_end(k), c,
                                          mean[c], A(0), false, p0, p1);
        s0 += static_cast<double>(p0);
        s1 += static_cast<double>(p1);
      }
      totals.s0[c] = s0;
      totals.s1[c] = s1;
      double p, q, r;
      coefs(c, s0, s1, p, q, r);
      f.p[c] = static_cast<A>(p);
      f.q[c] = static_cast<A>(q);
      f.r[c] = static_cast<A>(r);
      f.nan_free = grad_coefs_nan_free(f, c, c + 1);
      plane_write<T>(g, x, dy, dx, 0, g.m, c, f, ex.nt);
    }
    stream_fence();
  });
  return totals;
}

#define BNSCOPE_INSTANTIATE(T)                                                         \
  template Totals planes_pass<T>(const Exec&, const Geometry&, const T*, const T*, T*, \
                                 const std::vector<Acc<T>>&, const ChannelCoefs&);
BNSCOPE_CPU_ELEMENT_TYPES(BNSCOPE_INSTANTIATE)
#undef BNSCOPE_INSTANTIATE

}  // namespace bnscope::cpu
