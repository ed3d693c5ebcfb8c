#include "ops/moments.h"

#include <algorithm>
#include <cstring>

#include "tensor/parallel.h"
#include "tensor/vec_load.h"

namespace bnscope {

namespace {

// at(flat index) reads one element as double; both entry points share these two passes. A
// channel's sums run over (o, i) in order whatever range of channels a thread has.
template <class At>
ChannelMoments two_pass(At at, const ChannelView& v, const std::function<void(int)>& after_pass,
                        int threads) {
  const auto uc = [](std::int64_t c) { return static_cast<std::size_t>(c); };
  const double m = static_cast<double>(v.per_channel());
  ChannelMoments s{std::vector<double>(uc(v.channels), 0.0),
                   std::vector<double>(uc(v.channels), 0.0)};
  const int parts = channel_parts(v.channels, v.outer * v.channels * v.inner, threads);
  // Each range sums into its own vector (no cache line shared with another thread's sums).
  parallel_for(v.channels, parts, [&](int, std::int64_t c0, std::int64_t c1) {
    std::vector<double> sum(uc(c1 - c0), 0.0);
    double* const a = sum.data();
    if (v.inner == 1) {  // channels last: the channel loop innermost, which the compiler widens
      for (std::int64_t o = 0; o < v.outer; ++o) {
        const std::int64_t row = o * v.channels;
        for (std::int64_t c = c0; c < c1; ++c) a[c - c0] += at(row + c);
      }
    } else {
      for (std::int64_t o = 0; o < v.outer; ++o)
        for (std::int64_t c = c0; c < c1; ++c)
          for (std::int64_t i = 0; i < v.inner; ++i) a[c - c0] += at(v.index(o, c, i));
    }
    for (std::int64_t c = c0; c < c1; ++c) s.mean[uc(c)] = sum[uc(c - c0)] / m;
  });
  if (after_pass) after_pass(1);
  parallel_for(v.channels, parts, [&](int, std::int64_t c0, std::int64_t c1) {
    std::vector<double> sum(uc(c1 - c0), 0.0);
    double* const a = sum.data();
    const double* const mean = s.mean.data();
    if (v.inner == 1) {
      for (std::int64_t o = 0; o < v.outer; ++o) {
        const std::int64_t row = o * v.channels;
        for (std::int64_t c = c0; c < c1; ++c) {
          const double d = at(row + c) - mean[c];
          a[c - c0] += d * d;
        }
      }
    } else {
      for (std::int64_t o = 0; o < v.outer; ++o)
        for (std::int64_t c = c0; c < c1; ++c)
          for (std::int64_t i = 0; i < v.inner; ++i) {
            const double d = at(v.index(o, c, i)) - mean[c];
            a[c - c0] += d * d;
          }
    }
    for (std::int64_t c = c0; c < c1; ++c) s.biased_variance[uc(c)] = sum[uc(c - c0)] / m;
  });
  if (after_pass) after_pass(2);
  return s;
}

// The one-pass sums' order of operations, which fixes every bit of the figures whatever the
// thread count or vector clone: d = x - s (s the channel's first value, both widened to double),
// and each channel's sums of d and d*d run over its values in index order, except in an NCHW
// plane's run of `inner` values, where value i goes to the (i % 4)th of four partials (the run's
// last inner % 4 values to the first), which fold as (p0 + p1) + (p2 + p3) once all runs are in.
// The loops below keep tiles of channels (or the four partials) in registers; nothing else about
// them may change the figures.
constexpr std::int64_t kChunkBytes = std::int64_t{16} << 10;

// Columns [k, w) of `rows` channels-last rows (row r at x + r * C) into s1, s2: tiles of P * H
// columns, then narrower ones, the last column or two one value at a time. ahead, when not 0:
// prefetch the tile's values that many rows below, a row's worth per row.
template <int H, int P, class T>
[[gnu::always_inline]] inline void column_sums(const T* x, std::int64_t C, std::int64_t rows,
                                               std::int64_t k, std::int64_t w, const double* shift,
                                               double* s1, double* s2, std::int64_t ahead) {
  using D = Vec<double, H>;
  constexpr std::size_t kTileBytes = P * H * sizeof(T);
  for (; k + P * H <= w; k += P * H) {
    D sh[P], a[P], b[P];
    for (int j = 0; j < P; ++j) {
      std::memcpy(&sh[j], shift + k + j * H, sizeof(D));
      std::memcpy(&a[j], s1 + k + j * H, sizeof(D));
      std::memcpy(&b[j], s2 + k + j * H, sizeof(D));
    }
    for (std::int64_t r = 0; r < rows; ++r) {
      const T* p = x + r * C + k;
      if (ahead)
        for (std::size_t o = 0; o < kTileBytes; o += 64)
          __builtin_prefetch(reinterpret_cast<const char*>(p + ahead * C) + o);
      for (int j = 0; j < P; ++j) {
        D d;
        load_double<H>(p + j * H, d);
        d -= sh[j];
        a[j] += d;
        b[j] += d * d;
      }
    }
    for (int j = 0; j < P; ++j) {
      std::memcpy(s1 + k + j * H, &a[j], sizeof(D));
      std::memcpy(s2 + k + j * H, &b[j], sizeof(D));
    }
  }
  if constexpr (P == 2) {
    column_sums<H, 1>(x, C, rows, k, w, shift, s1, s2, 0);
  } else if constexpr (H > 2) {
    column_sums<H / 2, 1>(x, C, rows, k, w, shift, s1, s2, 0);
  } else {
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t j = k; j < w; ++j) {
        const double d = static_cast<double>(to_float(x[r * C + j])) - shift[j];
        s1[j] += d;
        s2[j] += d * d;
      }
  }
}

// Channels [c0, c1) of x: shifted sums into s1, s2 (indexed c - c0, zero on entry), shift[c - c0]
// set here. H doubles per register, P registers per channels-last tile.
template <int H, int P, class T>
[[gnu::always_inline]] inline void shifted_sums(const T* x, const ChannelView& v, std::int64_t c0,
                                                std::int64_t c1, double* shift, double* s1,
                                                double* s2) {
  const std::int64_t w = c1 - c0;
  for (std::int64_t c = c0; c < c1; ++c)
    shift[c - c0] = static_cast<double>(to_float(x[v.index(0, c, 0)]));
  if (v.inner == 1) {
    // The tiles run down chunks of rows small enough to stay in L1 between them, prefetching the
    // next chunk as they go: a tile's strided reads alone leave the hardware prefetchers behind.
    const std::int64_t chunk =
        std::max<std::int64_t>(1, kChunkBytes / (w * static_cast<std::int64_t>(sizeof(T))));
    for (std::int64_t r0 = 0; r0 < v.outer; r0 += chunk)
      column_sums<H, P>(x + r0 * v.channels + c0, v.channels, std::min(chunk, v.outer - r0), 0, w,
                        shift, s1, s2, r0 + chunk < v.outer ? chunk : 0);
    return;
  }
  using D4 = Vec<double, 4>;
  for (std::int64_t c = c0; c < c1; ++c) {
    D4 a{}, b{};
    const double sh = shift[c - c0];
    for (std::int64_t o = 0; o < v.outer; ++o) {
      const T* run = x + v.index(o, c, 0);
      std::int64_t i = 0;
      for (; i + 4 <= v.inner; i += 4) {
        D4 d;
        load_double<4>(run + i, d);
        d -= sh;
        a += d;
        b += d * d;
      }
      for (; i < v.inner; ++i) {
        const double d = static_cast<double>(to_float(run[i])) - sh;
        a[0] += d;
        b[0] += d * d;
      }
    }
    s1[c - c0] = (a[0] + a[1]) + (a[2] + a[3]);
    s2[c - c0] = (b[0] + b[1]) + (b[2] + b[3]);
  }
}

// The same loops compiled for AVX2 and AVX-512 (wider tiles, the same per-channel order, no FMA:
// the file builds with -ffp-contract=off) and picked when the CPU has them: the reserve-space
// check reads all of x on every run.
template <class T>
void sums_baseline(const T* x, const ChannelView& v, std::int64_t c0, std::int64_t c1,
                   double* shift, double* s1, double* s2) {
  shifted_sums<2, 1>(x, v, c0, c1, shift, s1, s2);
}
#if defined(__x86_64__) && defined(__GNUC__)
template <class T>
[[gnu::target("avx2")]] void sums_avx2(const T* x, const ChannelView& v, std::int64_t c0,
                                       std::int64_t c1, double* shift, double* s1, double* s2) {
  shifted_sums<4, 1>(x, v, c0, c1, shift, s1, s2);
}
template <class T>
[[gnu::target("avx512f,avx512bw,avx512vl,avx512dq")]] void sums_avx512(
    const T* x, const ChannelView& v, std::int64_t c0, std::int64_t c1, double* shift, double* s1,
    double* s2) {
  shifted_sums<8, 2>(x, v, c0, c1, shift, s1, s2);
}
#endif

}  // namespace

ChannelMoments channel_moments_one_pass(const Tensor& x, const ChannelView& v, int threads,
                                        int max_isa) {
  const auto uc = [](std::int64_t c) { return static_cast<std::size_t>(c); };
  ChannelMoments s{std::vector<double>(uc(v.channels), 0.0),
                   std::vector<double>(uc(v.channels), 0.0)};
  if (v.channels <= 0 || v.per_channel() <= 0) return s;
  const double m = static_cast<double>(v.per_channel());
  const int parts = channel_parts(v.channels, v.outer * v.channels * v.inner, threads);
  [[maybe_unused]] const VecIsa isa = vec_isa_at_most(max_isa);  // Baseline without the clones
  visit_dtype(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* d = x.data<T>();
    parallel_for(v.channels, parts, [&](int, std::int64_t c0, std::int64_t c1) {
      std::vector<double> shift(uc(c1 - c0)), s1(uc(c1 - c0), 0.0), s2(uc(c1 - c0), 0.0);
#if defined(__x86_64__) && defined(__GNUC__)
      if (isa == VecIsa::Avx512)
        sums_avx512(d, v, c0, c1, shift.data(), s1.data(), s2.data());
      else if (isa == VecIsa::Avx2)
        sums_avx2(d, v, c0, c1, shift.data(), s1.data(), s2.data());
      else
#endif
        sums_baseline(d, v, c0, c1, shift.data(), s1.data(), s2.data());
      for (std::int64_t c = c0; c < c1; ++c) {
        const double mean_d = s1[uc(c - c0)] / m;
        s.mean[uc(c)] = shift[uc(c - c0)] + mean_d;
        s.biased_variance[uc(c)] = std::max(s2[uc(c - c0)] / m - mean_d * mean_d, 0.0);
      }
    });
  });
  return s;
}

ChannelMoments channel_moments_biased(const std::vector<double>& x, const ChannelView& v,
                                      const std::function<void(int)>& after_pass, int threads) {
  return two_pass([&](std::int64_t k) { return x[static_cast<std::size_t>(k)]; }, v, after_pass,
                  threads);
}

ChannelMoments channel_moments_biased(const Tensor& x, const ChannelView& v,
                                      const std::function<void(int)>& after_pass, int threads) {
  return visit_dtype(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* d = x.data<T>();
    return two_pass([d](std::int64_t k) { return static_cast<double>(to_float(d[k])); }, v,
                    after_pass, threads);
  });
}

}  // namespace bnscope
