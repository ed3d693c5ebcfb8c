#include "backends/reference/grad_channels_last.h"

#include <cstring>

#include "tensor/vec_load.h"

namespace bnscope::reference {

namespace {

// Rows ahead that the sums ask for: each thread reads a fraction of every row, where the
// hardware prefetchers start over at each row. Into L2 (locality 2), 16 rows on: on the Zen 4
// this took about a fifth off the reference's run against L1 prefetches 8 rows on.
constexpr std::int64_t kRowsAhead = 16;

template <int H, class T>
[[gnu::always_inline]] inline void sums(const T* x, const T* dy, std::int64_t rows, std::int64_t C,
                                        std::int64_t c0, std::int64_t c1, const double* mu,
                                        double* sd, double* sdx) {
  using D = Vec<double, H>;
  const std::int64_t w = c1 - c0;
  const std::size_t bytes = static_cast<std::size_t>(w) * sizeof(T);
  for (std::int64_t r = 0; r < rows; ++r) {
    const T* xr = x + r * C + c0;
    const T* dr = dy + r * C + c0;
    if (r + kRowsAhead < rows)
      for (std::size_t o = 0; o < bytes; o += 64) {
        __builtin_prefetch(reinterpret_cast<const char*>(xr + kRowsAhead * C) + o, 0, 2);
        __builtin_prefetch(reinterpret_cast<const char*>(dr + kRowsAhead * C) + o, 0, 2);
      }
    std::int64_t j = 0;
    for (; j + H <= w; j += H) {
      D xv, dv, m, a, b;
      load_double<H>(xr + j, xv);
      load_double<H>(dr + j, dv);
      std::memcpy(&m, mu + c0 + j, sizeof m);
      std::memcpy(&a, sd + j, sizeof a);
      std::memcpy(&b, sdx + j, sizeof b);
      a += dv;
      b += dv * (xv - m);
      std::memcpy(sd + j, &a, sizeof a);
      std::memcpy(sdx + j, &b, sizeof b);
    }
    for (; j < w; ++j) {
      const double xs = static_cast<double>(xr[j]), dys = static_cast<double>(dr[j]);
      sd[j] += dys;
      sdx[j] += dys * (xs - mu[c0 + j]);
    }
  }
}

template <int H, class T>
[[gnu::always_inline]] inline void dx_rows(const T* x, const T* dy, T* dx, std::int64_t o0,
                                           std::int64_t o1, std::int64_t C, const GradFactors& f) {
  using D = Vec<double, H>;
  // Locals: the stores below (memcpy) may alias anything, f's fields too, which would be read
  // again for every vector.
  const double *const gkp = f.gk, *const mdp = f.mean_dy, *const mup = f.mu, *const kp = f.k,
                      *const sp = f.sum_dy_xc;
  const double m = f.m;
  const bool training = f.is_training;
  for (std::int64_t o = o0; o < o1; ++o) {
    const T* xr = x + o * C;
    const T* dr = dy + o * C;
    T* out = dx + o * C;
    std::int64_t c = 0;
    for (; c + H <= C; c += H) {
      D xv, dv, gk, r;
      load_double<H>(xr + c, xv);
      load_double<H>(dr + c, dv);
      std::memcpy(&gk, gkp + c, sizeof gk);
      if (training) {
        D md, mu, k, s;
        std::memcpy(&md, mdp + c, sizeof md);
        std::memcpy(&mu, mup + c, sizeof mu);
        std::memcpy(&k, kp + c, sizeof k);
        std::memcpy(&s, sp + c, sizeof s);
        r = gk * (dv - md - (xv - mu) * k * k * s / m);
      } else {
        r = gk * dv;
      }
      if constexpr (sizeof(T) == sizeof(double)) {
        std::memcpy(out + c, &r, sizeof r);
      } else {
        const Vec<float, H> rf = __builtin_convertvector(r, Vec<float, H>);
        std::memcpy(out + c, &rf, sizeof rf);
      }
    }
    for (; c < C; ++c) {
      const double xs = static_cast<double>(xr[c]), dys = static_cast<double>(dr[c]);
      const double r = training
                           ? gkp[c] * (dys - mdp[c] - (xs - mup[c]) * kp[c] * kp[c] * sp[c] / m)
                           : gkp[c] * dys;
      out[c] = static_cast<T>(r);
    }
  }
}

template <class T>
void sums_baseline(const T* x, const T* dy, std::int64_t rows, std::int64_t C, std::int64_t c0,
                   std::int64_t c1, const double* mu, double* sd, double* sdx) {
  sums<2>(x, dy, rows, C, c0, c1, mu, sd, sdx);
}
template <class T>
void dx_baseline(const T* x, const T* dy, T* dx, std::int64_t o0, std::int64_t o1, std::int64_t C,
                 const GradFactors& f) {
  dx_rows<2>(x, dy, dx, o0, o1, C, f);
}
#if defined(__x86_64__) && defined(__GNUC__)
template <class T>
[[gnu::target("avx2")]] void sums_avx2(const T* x, const T* dy, std::int64_t rows, std::int64_t C,
                                       std::int64_t c0, std::int64_t c1, const double* mu,
                                       double* sd, double* sdx) {
  sums<4>(x, dy, rows, C, c0, c1, mu, sd, sdx);
}
template <class T>
[[gnu::target("avx2")]] void dx_avx2(const T* x, const T* dy, T* dx, std::int64_t o0,
                                     std::int64_t o1, std::int64_t C, const GradFactors& f) {
  dx_rows<4>(x, dy, dx, o0, o1, C, f);
}
template <class T>
[[gnu::target("avx512f,avx512bw,avx512vl,avx512dq")]] void sums_avx512(
    const T* x, const T* dy, std::int64_t rows, std::int64_t C, std::int64_t c0, std::int64_t c1,
    const double* mu, double* sd, double* sdx) {
  sums<8>(x, dy, rows, C, c0, c1, mu, sd, sdx);
}
template <class T>
[[gnu::target("avx512f,avx512bw,avx512vl,avx512dq")]] void dx_avx512(const T* x, const T* dy, T* dx,
                                                                     std::int64_t o0,
                                                                     std::int64_t o1,
                                                                     std::int64_t C,
                                                                     const GradFactors& f) {
  dx_rows<8>(x, dy, dx, o0, o1, C, f);
}
#endif

}  // namespace

template <class T>
void grad_sums_channels_last(const T* x, const T* dy, std::int64_t rows, std::int64_t C,
                             std::int64_t c0, std::int64_t c1, const double* mu, double* sd,
                             double* sdx, int max_isa) {
  [[maybe_unused]] const VecIsa isa = vec_isa_at_most(max_isa);
#if defined(__x86_64__) && defined(__GNUC__)
  if (isa == VecIsa::Avx512) return sums_avx512(x, dy, rows, C, c0, c1, mu, sd, sdx);
  if (isa == VecIsa::Avx2) return sums_avx2(x, dy, rows, C, c0, c1, mu, sd, sdx);
#endif
  sums_baseline(x, dy, rows, C, c0, c1, mu, sd, sdx);
}

template <class T>
void grad_dx_channels_last(const T* x, const T* dy, T* dx, std::int64_t o0, std::int64_t o1,
                           std::int64_t C, const GradFactors& f, int max_isa) {
  [[maybe_unused]] const VecIsa isa = vec_isa_at_most(max_isa);
#if defined(__x86_64__) && defined(__GNUC__)
  if (isa == VecIsa::Avx512) return dx_avx512(x, dy, dx, o0, o1, C, f);
  if (isa == VecIsa::Avx2) return dx_avx2(x, dy, dx, o0, o1, C, f);
#endif
  dx_baseline(x, dy, dx, o0, o1, C, f);
}

template void grad_sums_channels_last<float>(const float*, const float*, std::int64_t, std::int64_t,
                                             std::int64_t, std::int64_t, const double*, double*,
                                             double*, int);
template void grad_sums_channels_last<double>(const double*, const double*, std::int64_t,
                                              std::int64_t, std::int64_t, std::int64_t,
                                              const double*, double*, double*, int);
template void grad_dx_channels_last<float>(const float*, const float*, float*, std::int64_t,
                                           std::int64_t, std::int64_t, const GradFactors&, int);
template void grad_dx_channels_last<double>(const double*, const double*, double*, std::int64_t,
                                            std::int64_t, std::int64_t, const GradFactors&, int);

}  // namespace bnscope::reference
