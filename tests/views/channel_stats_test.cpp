#include "analysis/channel_stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace bnscope {
namespace {

// x is NHWC [1,1,2,2]: channel 0 holds {1, 3}, channel 1 holds {2, 4}.
Problem tiny_problem(ReserveConvention conv) {
  Problem p;
  p.op = "FusedBatchNormGradV3";
  p.attrs["epsilon"] = 0.5;
  p.convention = conv;
  const double x[] = {1, 2, 3, 4};
  p.inputs["x"] = Tensor::from_doubles(DType::F32, {1, 1, 2, 2}, x);
  p.inputs["y_backprop"] = Tensor::from_doubles(DType::F32, {1, 1, 2, 2}, x);
  const double scale[] = {1, 1}, mean[] = {2, 3}, second[] = {1, 2};
  p.inputs["scale"] = Tensor::from_doubles(DType::F32, {2}, scale);
  p.inputs["reserve_space_1"] = Tensor::from_doubles(DType::F32, {2}, mean);
  p.inputs["reserve_space_2"] = Tensor::from_doubles(DType::F32, {2}, second);
  return p;
}

// A hand-made result: the stats must summarize whatever the backend returned.
Result tiny_result() {
  Result r;
  const double dx[] = {-1, 2, std::numeric_limits<double>::quiet_NaN(), -6};
  r.outputs.push_back({"x_backprop", Tensor::from_doubles(DType::F32, {1, 1, 2, 2}, dx)});
  const double sb[] = {10, 20}, ob[] = {30, 40};
  r.outputs.push_back({"scale_backprop", Tensor::from_doubles(DType::F32, {2}, sb)});
  r.outputs.push_back({"offset_backprop", Tensor::from_doubles(DType::F32, {2}, ob)});
  r.outputs.push_back({"reserve_space_4", Tensor(DType::F32, {0})});
  return r;
}

TEST(ChannelStats, SummarizesOutputsPerChannel) {
  const Prepared p = prepare(tiny_problem(ReserveConvention::Variance));
  const ChannelStats s = channel_stats(p, tiny_result());
  ASSERT_EQ(s.channels, 2);
  EXPECT_EQ(s.column("scale_backprop")->values, (std::vector<double>{10, 20}));
  EXPECT_EQ(s.column("offset_backprop")->values, (std::vector<double>{30, 40}));
  EXPECT_EQ(s.column("reserve_space_4"), nullptr);
  EXPECT_EQ(s.column("mean used")->values, (std::vector<double>{2, 3}));
  EXPECT_EQ(s.column("variance used")->values, (std::vector<double>{1, 2}));
  // channel 0: {-1, NaN}; channel 1: {2, -6}
  EXPECT_EQ(s.column("|x_backprop| min")->values, (std::vector<double>{1, 2}));
  EXPECT_EQ(s.column("|x_backprop| max")->values, (std::vector<double>{1, 6}));
  EXPECT_EQ(s.column("|x_backprop| mean")->values, (std::vector<double>{1, 4}));
  EXPECT_DOUBLE_EQ(s.column("|x_backprop| L2")->values[1], std::sqrt(40.0));
  EXPECT_EQ(s.column("non-finite x_backprop")->values, (std::vector<double>{1, 0}));
  EXPECT_EQ(s.column("non-finite inputs")->values, (std::vector<double>{0, 0}));
}

TEST(ChannelStats, InverseStdConventionGivesTheVarianceBack) {
  const Prepared p = prepare(tiny_problem(ReserveConvention::InvStd));
  const ChannelStats s = channel_stats(p, tiny_result());
  // 1/r^2 - eps with eps = 0.5: r = 1 -> 0.5, r = 2 -> -0.25
  EXPECT_DOUBLE_EQ(s.column("variance used")->values[0], 0.5);
  EXPECT_DOUBLE_EQ(s.column("variance used")->values[1], -0.25);
}

TEST(ChannelStats, ChannelValuesFollowTheLayout) {
  const double v[] = {0, 1, 2, 3, 4, 5};
  const Tensor nchw = Tensor::from_doubles(DType::F32, {1, 2, 1, 3}, v);
  EXPECT_EQ(channel_values(nchw, channel_view(nchw.shape(), false), 1),
            (std::vector<double>{3, 4, 5}));
  const Tensor nhwc = Tensor::from_doubles(DType::F32, {1, 1, 3, 2}, v);
  EXPECT_EQ(channel_values(nhwc, channel_view(nhwc.shape(), true), 1),
            (std::vector<double>{1, 3, 5}));
  EXPECT_TRUE(channel_values(nhwc, channel_view(nhwc.shape(), true), 2).empty());
}

TEST(ChannelStats, HistogramCountsEveryFiniteValueOnce) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Histogram h = histogram({0, 1, 2, 3, 4, nan}, 4);
  EXPECT_EQ(h.lo, 0);
  EXPECT_EQ(h.hi, 4);
  EXPECT_EQ(h.non_finite, 1);
  EXPECT_EQ(h.counts, (std::vector<std::int64_t>{1, 1, 1, 2}));
  const Histogram flat = histogram({5, 5}, 3);
  EXPECT_EQ(flat.counts, (std::vector<std::int64_t>{2, 0, 0}));
}

}  // namespace
}  // namespace bnscope
