// scan_channels against a plain loop that follows its documented order of operations: every
// figure must be the same bits, for every stored dtype, both layouts, odd sizes, non-finite
// values and signed zeros, on any thread count and whichever vector clone runs.

#include "analysis/channel_scan.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "tensor/layout.h"

namespace bnscope {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// The scan's block, in elements: the threads split the blocks, so the sums' order depends on it.
constexpr std::int64_t kBlock = std::int64_t{1} << 16;
constexpr std::int64_t kLanes = 16;

template <class A>
struct Acc {
  A min = std::numeric_limits<A>::infinity(), max = -std::numeric_limits<A>::infinity();
  A abs_min = std::numeric_limits<A>::infinity(), abs_max = 0;
  double sum = 0, abs_sum = 0, sq_sum = 0;
  std::int64_t non_finite = 0;

  void add(A x) {
    if (!std::isfinite(x)) {
      ++non_finite;
      return;
    }
    const A a = std::fabs(x);
    min = x < min ? x : min;
    max = x > max ? x : max;
    abs_min = a < abs_min ? a : abs_min;
    abs_max = a > abs_max ? a : abs_max;
    sum += static_cast<double>(x);
    abs_sum += static_cast<double>(a);
    sq_sum += static_cast<double>(a) * static_cast<double>(a);
  }
  void fold(const Acc& o) {
    min = o.min < min ? o.min : min;
    max = max < o.max ? o.max : max;
    abs_min = o.abs_min < abs_min ? o.abs_min : abs_min;
    abs_max = abs_max < o.abs_max ? o.abs_max : abs_max;
    sum += o.sum;
    abs_sum += o.abs_sum;
    sq_sum += o.sq_sum;
    non_finite += o.non_finite;
  }
};

// Thread t of n takes blocks [B t / n, B (t + 1) / n); within them a channel's values go one by
// one in index order, but for an NCHW row's first inner / 16 * 16 values, which go to 16
// interleaved partials folded in lane order; the threads fold in thread order.
template <class T>
ChannelScan reference(const Tensor& t, const ChannelView& v, int threads, bool magnitudes) {
  using A = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const T* data = t.data<T>();
  const std::int64_t rows = v.outer * v.channels;
  const std::int64_t per_block = std::max<std::int64_t>(1, kBlock / v.inner);
  const std::int64_t blocks = (rows + per_block - 1) / per_block;
  const std::int64_t parts = std::min<std::int64_t>(threads, blocks);
  const auto C = static_cast<std::size_t>(v.channels);
  std::vector<Acc<A>> all(C);
  for (std::int64_t part = 0; part < parts; ++part) {
    std::vector<Acc<A>> acc(C);
    const std::int64_t r0 = blocks * part / parts * per_block;
    const std::int64_t r1 = std::min(rows, blocks * (part + 1) / parts * per_block);
    for (std::int64_t r = r0; r < r1; ++r) {
      Acc<A>& ch = acc[static_cast<std::size_t>(r % v.channels)];
      const T* row = data + r * v.inner;
      const std::int64_t full = v.inner == 1 ? 0 : v.inner / kLanes * kLanes;
      if (v.inner > 1) {
        Acc<A> lanes[kLanes];
        for (std::int64_t i = 0; i < full; ++i)
          lanes[i % kLanes].add(static_cast<A>(to_float(row[i])));
        for (const Acc<A>& l : lanes) ch.fold(l);
      }
      for (std::int64_t i = full; i < v.inner; ++i) ch.add(static_cast<A>(to_float(row[i])));
    }
    for (std::size_t k = 0; k < C; ++k) {
      if (part == 0)
        all[k] = acc[k];
      else
        all[k].fold(acc[k]);
    }
  }
  ChannelScan s;
  s.view = v;
  for (const Acc<A>& a : all) {
    s.min.push_back(static_cast<double>(a.min));
    s.max.push_back(static_cast<double>(a.max));
    s.sum.push_back(a.sum);
    s.non_finite.push_back(a.non_finite);
    s.finite.push_back(v.outer * v.inner - a.non_finite);
    if (magnitudes) {
      s.abs_min.push_back(static_cast<double>(a.abs_min));
      s.abs_max.push_back(static_cast<double>(a.abs_max));
      s.abs_sum.push_back(a.abs_sum);
      s.sq_sum.push_back(a.sq_sum);
    }
  }
  return s;
}

ChannelScan reference(const Tensor& t, const ChannelView& v, int threads, bool magnitudes) {
  switch (t.dtype()) {
    case DType::F16:
      return reference<f16>(t, v, threads, magnitudes);
    case DType::BF16:
      return reference<bf16>(t, v, threads, magnitudes);
    case DType::F32:
      return reference<float>(t, v, threads, magnitudes);
    case DType::F64:
      return reference<double>(t, v, threads, magnitudes);
  }
  return {};
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  // Empty vectors (magnitudes not asked for) have no data pointer to hand to memcmp.
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

void expect_same(const ChannelScan& got, const ChannelScan& want, const std::string& what) {
  EXPECT_TRUE(same_bits(got.min, want.min)) << what << ": min";
  EXPECT_TRUE(same_bits(got.max, want.max)) << what << ": max";
  EXPECT_TRUE(same_bits(got.sum, want.sum)) << what << ": sum";
  EXPECT_TRUE(same_bits(got.abs_min, want.abs_min)) << what << ": abs_min";
  EXPECT_TRUE(same_bits(got.abs_max, want.abs_max)) << what << ": abs_max";
  EXPECT_TRUE(same_bits(got.abs_sum, want.abs_sum)) << what << ": abs_sum";
  EXPECT_TRUE(same_bits(got.sq_sum, want.sq_sum)) << what << ": sq_sum";
  EXPECT_EQ(got.finite, want.finite) << what;
  EXPECT_EQ(got.non_finite, want.non_finite) << what;
}

// Values of every kind: wide-ranging finite ones (subnormal halves among them), NaN, +-Inf and
// both zeros, with channel 1 (when there is one) holding no finite value at all.
std::vector<double> values(std::int64_t n, std::int64_t channels, std::int64_t inner) {
  std::vector<double> out(static_cast<std::size_t>(n));
  std::uint64_t s = 12345;
  for (std::int64_t i = 0; i < n; ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    const auto u = static_cast<std::uint32_t>(s >> 32);
    // Full double mantissas: a product of two then rounds, so a fused multiply-add shows.
    const double unit = std::ldexp(static_cast<double>(s >> 11), -53) - 0.5;
    double x = unit * std::ldexp(1.0, static_cast<int>((u >> 24) % 40) - 28);
    switch (u % 97) {
      case 0:
        x = kNaN;
        break;
      case 1:
        x = kInf;
        break;
      case 2:
        x = -kInf;
        break;
      case 3:
        x = -0.0;
        break;
      case 4:
        x = 0.0;
        break;
      default:
        break;
    }
    if (channels > 1 && i / inner % channels == 1) x = (i % 2) ? kNaN : -kInf;
    out[static_cast<std::size_t>(i)] = x;
  }
  return out;
}

struct Case {
  Shape shape;
  bool channels_last;
};

// C not a multiple of any vector width, inner not a multiple of 16 and under 16, blocks that
// end inside a row, rows longer than a block, one channel.
const Case kCases[] = {
    {{2, 3, 5, 19}, true},    {{40, 37, 100}, true}, {{3, 29, 2, 1000}, true},
    {{2, 70001}, true},       {{1, 100, 1}, true},   {{257, 3, 100}, true},
    {{3, 7, 37}, false},      {{2, 5, 2, 2}, false}, {{2, 19, 3, 5, 7}, false},
    {{1, 2, 70003}, false},   {{4, 3, 4, 8}, false}, {{2, 256, 56, 7}, true},
    {{2, 20, 32, 50}, false}, {{5000, 1}, true},
};

TEST(ChannelScanBits, MatchesThePlainLoopBitForBit) {
  for (const Case& c : kCases) {
    for (DType dtype : kAllDTypes) {
      const ChannelView v = channel_view(c.shape, c.channels_last);
      std::int64_t n = 1;
      for (std::int64_t d : c.shape) n *= d;
      const Tensor t = Tensor::from_doubles(dtype, c.shape, values(n, v.channels, v.inner));
      for (int threads : {1, 2})
        for (bool magnitudes : {true, false}) {
          const ChannelScan want = reference(t, v, threads, magnitudes);
          for (int isa : {0, 1, 2}) {
            ScanControl ctl;
            ctl.threads = threads;
            ctl.max_isa = isa;
            const std::string what = std::string(dtype_name(dtype)) + " view " +
                                     std::to_string(v.outer) + "x" + std::to_string(v.channels) +
                                     "x" + std::to_string(v.inner) + " threads " +
                                     std::to_string(threads) + (magnitudes ? " magnitudes" : "") +
                                     " isa " + std::to_string(isa);
            expect_same(scan_channels(t, v, ctl, magnitudes), want, what);
          }
        }
    }
  }
}

// The whole-tensor summary is a one-channel scan: the same bits as the plain loop too.
TEST(ChannelScanBits, SummaryOfOneChannel) {
  const Tensor t = Tensor::from_doubles(DType::F32, {300000}, values(300000, 1, 1));
  const ChannelView v{300000, 1, 1};
  ScanControl ctl;
  ctl.threads = 2;
  expect_same(scan_channels(t, v, ctl, false), reference(t, v, 2, false), "one channel");
}

}  // namespace
}  // namespace bnscope
