// Pass structure: channels-first, one channel plane at a time (one sweep over x, dy and dx).
//
// In NCHW a channel's M positions are N contiguous runs, so a thread that owns whole channels
// can reduce a plane and then write its dx while x and dy are still in its L2: 3 tensor passes
// from memory instead of 5. Used for training grads when a plane's x+dy fits about half of a
// core's L2 and there are at least as many channels as threads. The plane is reduced chunk by
// chunk exactly as reduce_pass does it, so the sums (and dx) are bitwise identical to the
// two-pass structure and independent of the thread count.

#include "backends/cpu/passes.h"

namespace bnscope::cpu {

namespace {
constexpr std::size_t kPlaneBytes = 1u << 20;
}

bool planes_fit(const Geometry& g, std::size_t element_size, int threads) {
  return !g.rows() && g.channels >= threads &&
         2 * static_cast<std::size_t>(g.m) * element_size <= kPlaneBytes;
}

template <class T>
Totals planes_pass(const Exec& ex, const Geometry& g, const T* x, const T* dy, T* dx,
                   const std::vector<Acc<T>>& mean, const ChannelCoefs& coefs) {
  using A = Acc<T>;
  Totals totals;
  totals.s0.resize(static_cast<std::size_t>(g.channels));
  totals.s1.resize(totals.s0.size());
  const int n = threads_for(ex, g.channels);
  ex.pool->run(n, [&](int t) {
    const Span span = split_range(g.channels, n, t);
    std::vector<T> tmp(ex.nt ? static_cast<std::size_t>(kBlock) : 0);
    T* staging = ex.nt ? tmp.data() : nullptr;
    Affine<A> f;
    f.p.resize(static_cast<std::size_t>(g.channels));
    f.q = f.r = f.p;
    f.m = mean;
    for (std::int64_t c = span.begin; c < span.end; ++c) {
      double s0 = 0, s1 = 0;
      for (std::int64_t k = 0; k < g.chunks; ++k) {
        A p0, p1;
        plane_reduce<Sum::Grad, false, T>(g, x, dy, nullptr, g.chunk_begin(k), g.chunk_end(k), c,
                                          mean[c], A(0), nullptr, p0, p1);
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
      plane_write<T>(g, x, dy, dx, 0, g.m, c, f, staging);
    }
    stream_fence();
  });
  return totals;
}

#define BNSCOPE_INSTANTIATE(T)                                                         \
  template Totals planes_pass<T>(const Exec&, const Geometry&, const T*, const T*, T*, \
                                 const std::vector<Acc<T>>&, const ChannelCoefs&);
BNSCOPE_INSTANTIATE(f16)
BNSCOPE_INSTANTIATE(bf16)
BNSCOPE_INSTANTIATE(float)
BNSCOPE_INSTANTIATE(double)
#undef BNSCOPE_INSTANTIATE

}  // namespace bnscope::cpu
