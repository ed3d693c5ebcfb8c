// The one per-channel moments function, against numbers worked out by hand.

#include "ops/moments.h"

#include <gtest/gtest.h>

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

}  // namespace bnscope
