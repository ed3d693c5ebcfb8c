#include "ops/moments.h"

#include <algorithm>

#include "tensor/parallel.h"

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

// Channels [c0, c1) of x: shifted sums into s1, s2 (indexed c - c0), shift[c - c0] set here.
template <class T>
void shifted_sums(const T* x, const ChannelView& v, std::int64_t c0, std::int64_t c1, double* shift,
                  double* s1, double* s2) {
  const std::int64_t w = c1 - c0;
  for (std::int64_t c = c0; c < c1; ++c)
    shift[c - c0] = static_cast<double>(to_float(x[v.index(0, c, 0)]));
  if (v.inner == 1) {  // channels last: plain loops over a row's channels, widened by the compiler
    for (std::int64_t o = 0; o < v.outer; ++o) {
      const T* row = x + o * v.channels + c0;
      for (std::int64_t k = 0; k < w; ++k) {
        const double d = static_cast<double>(to_float(row[k])) - shift[k];
        s1[k] += d;
        s2[k] += d * d;
      }
    }
    return;
  }
  for (std::int64_t c = c0; c < c1; ++c) {
    // Four interleaved sums per run of `inner` elements: independent chains the CPU overlaps,
    // added in a fixed order.
    double a[4] = {0, 0, 0, 0}, b[4] = {0, 0, 0, 0};
    const double sh = shift[c - c0];
    for (std::int64_t o = 0; o < v.outer; ++o) {
      const T* run = x + v.index(o, c, 0);
      std::int64_t i = 0;
      for (; i + 4 <= v.inner; i += 4)
        for (int l = 0; l < 4; ++l) {
          const double d = static_cast<double>(to_float(run[i + l])) - sh;
          a[l] += d;
          b[l] += d * d;
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

}  // namespace

ChannelMoments channel_moments_one_pass(const Tensor& x, const ChannelView& v, int threads) {
  const auto uc = [](std::int64_t c) { return static_cast<std::size_t>(c); };
  ChannelMoments s{std::vector<double>(uc(v.channels), 0.0),
                   std::vector<double>(uc(v.channels), 0.0)};
  if (v.channels <= 0 || v.per_channel() <= 0) return s;
  const double m = static_cast<double>(v.per_channel());
  const int parts = channel_parts(v.channels, v.outer * v.channels * v.inner, threads);
  visit_dtype(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* d = x.data<T>();
    parallel_for(v.channels, parts, [&](int, std::int64_t c0, std::int64_t c1) {
      std::vector<double> shift(uc(c1 - c0)), s1(uc(c1 - c0), 0.0), s2(uc(c1 - c0), 0.0);
      shifted_sums(d, v, c0, c1, shift.data(), s1.data(), s2.data());
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
