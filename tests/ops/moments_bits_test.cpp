// The one-pass moments against a plain loop that follows their documented order of operations:
// the same bits for every stored dtype, both layouts, odd sizes and non-finite values, on any
// thread count and whichever vector clone runs.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "ops/moments.h"
#include "tensor/layout.h"

namespace bnscope {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// d = x - (the channel's first value); sums of d and d*d in index order, but in an NCHW run of
// `inner` values value i goes to partial i % 4 (the run's last inner % 4 values to partial 0),
// folded as (p0 + p1) + (p2 + p3).
template <class T>
ChannelMoments reference(const Tensor& t, const ChannelView& v) {
  const T* x = t.data<T>();
  const auto C = static_cast<std::size_t>(v.channels);
  const double m = static_cast<double>(v.per_channel());
  ChannelMoments out{std::vector<double>(C), std::vector<double>(C)};
  for (std::int64_t c = 0; c < v.channels; ++c) {
    const double sh = static_cast<double>(to_float(x[v.index(0, c, 0)]));
    double a[4] = {0, 0, 0, 0}, b[4] = {0, 0, 0, 0};
    for (std::int64_t o = 0; o < v.outer; ++o) {
      const std::int64_t full = v.inner == 1 ? 0 : v.inner / 4 * 4;
      for (std::int64_t i = 0; i < v.inner; ++i) {
        const double d = static_cast<double>(to_float(x[v.index(o, c, i)])) - sh;
        const std::int64_t l = i < full ? i % 4 : 0;
        a[l] += d;
        b[l] += d * d;
      }
    }
    const double s1 = (a[0] + a[1]) + (a[2] + a[3]), s2 = (b[0] + b[1]) + (b[2] + b[3]);
    const double mean_d = s1 / m;
    out.mean[static_cast<std::size_t>(c)] = sh + mean_d;
    out.biased_variance[static_cast<std::size_t>(c)] = std::max(s2 / m - mean_d * mean_d, 0.0);
  }
  return out;
}

ChannelMoments reference(const Tensor& t, const ChannelView& v) {
  return visit_dtype(t.dtype(),
                     [&](auto tag) { return reference<typename decltype(tag)::type>(t, v); });
}

// Any NaN matches any NaN: which operand's NaN an addition passes on is the compiler's choice of
// operand order, in the plain loop as in the clones; a NaN figure only marks the channel.
bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!(std::isnan(a[i]) && std::isnan(b[i])) && std::memcmp(&a[i], &b[i], sizeof(double)) != 0)
      return false;
  return true;
}

// Wide-ranging values around a per-channel offset with full double mantissas (a product of two
// then rounds, so a fused multiply-add shows), negative zeros and subnormal halves among them;
// channel 1 (where there is one) holds NaN and -Inf only, channels 2 and 3 some Inf and NaN.
std::vector<double> values(std::int64_t n, std::int64_t channels, std::int64_t inner) {
  std::vector<double> out(static_cast<std::size_t>(n));
  std::uint64_t s = 977;
  for (std::int64_t i = 0; i < n; ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    const auto u = static_cast<std::uint32_t>(s >> 32);
    const double unit = std::ldexp(static_cast<double>(s >> 11), -53) - 0.5;
    const std::int64_t c = i / inner % channels;
    double x =
        static_cast<double>(c) * 3 + unit * std::ldexp(1.0, static_cast<int>(u >> 24) % 30 - 26);
    if (u % 211 == 3) x = -0.0;
    if (c == 1) x = (i % 2) ? kNaN : -kInf;
    if (c == 2 && u % 13 == 0) x = kInf;
    if (c == 3 && u % 13 == 0) x = kNaN;
    out[static_cast<std::size_t>(i)] = x;
  }
  return out;
}

struct Case {
  Shape shape;
  bool channels_last;
};

// C not a multiple of any tile width, C above one chunk of rows, rows enough for many chunks,
// inner under 4 and not a multiple of 4, one channel.
const Case kCases[] = {
    {{2, 3, 5, 19}, true}, {{40, 37, 100}, true},     {{3, 29, 2, 1000}, true},
    {{1, 100, 1}, true},   {{257, 3, 100}, true},     {{8, 7, 7, 256}, true},
    {{5000, 1}, true},     {{4000, 33}, true},        {{3, 7, 37}, false},
    {{2, 5, 2, 2}, false}, {{2, 19, 3, 5, 7}, false}, {{1, 2, 70003}, false},
    {{4, 3, 4, 8}, false}, {{2, 20, 32, 50}, false},  {{300, 1, 1}, false},
};

TEST(MomentsBits, OnePassMatchesThePlainLoopBitForBit) {
  for (const Case& k : kCases)
    for (const DType dtype : kAllDTypes) {
      const ChannelView v = channel_view(k.shape, k.channels_last);
      std::int64_t n = 1;
      for (const std::int64_t d : k.shape) n *= d;
      const Tensor t = Tensor::from_doubles(dtype, k.shape, values(n, v.channels, v.inner));
      const ChannelMoments want = reference(t, v);
      for (std::size_t c = 0; c < want.mean.size(); ++c) {
        if (c < 1 || c > 3) {
          EXPECT_TRUE(std::isfinite(want.biased_variance[c]));
        }
      }
      for (const int threads : {1, 2})
        for (const int isa : {0, 1, 2}) {
          const ChannelMoments got = channel_moments_one_pass(t, v, threads, isa);
          const std::string what = std::string(dtype_name(dtype)) + " view " +
                                   std::to_string(v.outer) + "x" + std::to_string(v.channels) +
                                   "x" + std::to_string(v.inner) + " threads " +
                                   std::to_string(threads) + " isa " + std::to_string(isa);
          EXPECT_TRUE(same_bits(got.mean, want.mean)) << what << ": mean";
          EXPECT_TRUE(same_bits(got.biased_variance, want.biased_variance)) << what << ": variance";
        }
    }
}

}  // namespace
}  // namespace bnscope
