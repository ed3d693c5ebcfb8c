#include "ops/moments.h"

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

}  // namespace

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
