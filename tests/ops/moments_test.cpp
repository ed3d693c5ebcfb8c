// The one per-channel moments function, against numbers worked out by hand.

#include "ops/moments.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

namespace bnscope {

TEST(Moments, TwoPassBiasedPerChannelChannelsLast) {
  // [1, 2, 2, 2] NHWC: channel 0 holds 1, 2, 3, 4; channel 1 holds 10, 10, 10, 14.
  const std::vector<double> x{1, 10, 2, 10, 3, 10, 4, 14};
  const ChannelMoments m = channel_moments_biased(x, channel_view({1, 2, 2, 2}, true));
  ASSERT_EQ(m.mean.size(), 2u);
  EXPECT_DOUBLE_EQ(m.mean[0], 2.5);
  EXPECT_DOUBLE_EQ(m.mean[1], 11.0);
  EXPECT_DOUBLE_EQ(m.biased_variance[0], 1.25);  // 5/4, not the unbiased 5/3
  EXPECT_DOUBLE_EQ(m.biased_variance[1], 3.0);   // 12/4
}

TEST(Moments, ChannelsFirstReadsTheSameChannels) {
  // The same values as [1, 2, 2, 2] NCHW: channel 0 first, then channel 1.
  const std::vector<double> x{1, 2, 3, 4, 10, 10, 10, 14};
  const ChannelMoments m = channel_moments_biased(x, channel_view({1, 2, 2, 2}, false));
  EXPECT_DOUBLE_EQ(m.mean[0], 2.5);
  EXPECT_DOUBLE_EQ(m.biased_variance[1], 3.0);
}

TEST(Moments, TwoPassesKeepALargeOffset) {
  // A one-pass E[x^2] - E[x]^2 loses every digit here; two passes keep the variance exact.
  const double big = 1e9;
  const std::vector<double> x{big + 1, big + 2, big + 3, big + 4};
  const ChannelMoments m = channel_moments_biased(x, channel_view({4, 1}, true));
  EXPECT_DOUBLE_EQ(m.biased_variance[0], 1.25);
}

TEST(Moments, ReportsBothPasses) {
  std::vector<int> passes;
  channel_moments_biased({1, 2}, channel_view({2, 1}, true), [&](int k) { passes.push_back(k); });
  EXPECT_EQ(passes, (std::vector<int>{1, 2}));
}

// The one-pass figures (the reserve-space check's) against the two-pass ones, in both layouts,
// in float and half, with runs of `inner` that are not a multiple of the four interleaved sums.
TEST(Moments, OnePassAgreesWithTwoPasses) {
  std::mt19937 rng(7);
  for (const bool last : {true, false})
    for (const DType t : {DType::F32, DType::F16})
      for (const Shape& shape : {Shape{3, 5, 7, 6}, Shape{2, 4, 4, 3}, Shape{64, 1}, Shape{1, 9}}) {
        Tensor x(t, shape);
        const ChannelView v = channel_view(shape, last);
        std::normal_distribution<double> normal(0, 1);
        for (std::int64_t i = 0; i < x.numel(); ++i) {
          const std::int64_t c = last ? i % v.channels : (i / v.inner) % v.channels;
          x.set(i,
                100.0 * static_cast<double>(c) - 50 + (1 + static_cast<double>(c)) * normal(rng));
        }
        const ChannelMoments two = channel_moments_biased(x, v);
        for (const int threads : {1, 2, 3}) {
          const ChannelMoments one = channel_moments_one_pass(x, v, threads);
          ASSERT_EQ(one.mean.size(), two.mean.size());
          for (std::size_t c = 0; c < two.mean.size(); ++c) {
            EXPECT_NEAR(one.mean[c], two.mean[c], 1e-12 * (1 + std::fabs(two.mean[c])));
            EXPECT_NEAR(one.biased_variance[c], two.biased_variance[c],
                        1e-10 * (1 + two.biased_variance[c]));
          }
          if (threads > 1) {
            const ChannelMoments single = channel_moments_one_pass(x, v, 1);
            EXPECT_EQ(one.mean, single.mean);
            EXPECT_EQ(one.biased_variance, single.biased_variance);
          }
        }
      }
}

TEST(Moments, OnePassShiftKeepsALargeOffsetAndMarksNonFinite) {
  const double big = 1e9;
  const std::vector<double> xs{big + 1, 1, big + 2, std::nan(""), big + 3, 3, big + 4, 4};
  const Tensor x = Tensor::from_doubles(DType::F64, {4, 2}, xs);
  const ChannelMoments m = channel_moments_one_pass(x, channel_view({4, 2}, true));
  EXPECT_DOUBLE_EQ(m.mean[0], big + 2.5);
  EXPECT_DOUBLE_EQ(m.biased_variance[0], 1.25);
  EXPECT_TRUE(std::isnan(m.mean[1]));
  EXPECT_TRUE(std::isnan(m.biased_variance[1]));
  const std::vector<double> is{std::numeric_limits<double>::infinity(), 1};
  const Tensor inf = Tensor::from_doubles(DType::F32, {2, 1}, is);
  EXPECT_FALSE(std::isfinite(channel_moments_one_pass(inf, channel_view({2, 1}, true)).mean[0]));
}

}  // namespace bnscope
