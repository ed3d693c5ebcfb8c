#include "planner.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "occupancy.h"
#include "tensor/error.h"

namespace bnscope::gpu {
namespace {

ShapeIn shape(std::int64_t outer, std::int64_t c, std::int64_t inner, Work w = Work::GradTraining,
              int elem = 4) {
  ShapeIn s;
  s.outer = outer;
  s.channels = c;
  s.inner = inner;
  s.work = w;
  s.elem_bytes = elem;
  s.acc_bytes = 4;
  return s;
}

// Invariants every plan must satisfy, whatever the shape.
void expect_valid(const ShapeIn& s, const Plan& p, const DeviceLimits& d = {}) {
  const std::int64_t m = s.outer * s.inner;
  EXPECT_GE(p.block_x, 1);
  EXPECT_GE(p.block_y, 1);
  EXPECT_LE(p.threads(), d.max_threads_per_block);
  EXPECT_EQ(p.block_y & (p.block_y - 1), 0) << "block_reduce_y needs a power-of-two block_y";
  EXPECT_GE(p.groups * p.block_x, s.channels);
  EXPECT_LT((p.groups - 1) * p.block_x, s.channels) << "no empty channel group";
  EXPECT_LE(p.groups, d.max_grid_x);
  EXPECT_GE(p.splits, 1);
  EXPECT_LE(p.splits, d.max_grid_y);
  EXPECT_GE(static_cast<std::int64_t>(p.splits) * p.m_per_split, m) << "slices cover M";
  EXPECT_LT(static_cast<std::int64_t>(p.splits - 1) * p.m_per_split, m) << "no empty slice";
  EXPECT_LE(p.shared_bytes, p.variant == Variant::SinglePass ? d.max_shared_per_block_optin
                                                             : d.max_shared_per_block);
  EXPECT_GE(p.shared_bytes, 2 * p.threads() * s.acc_bytes);
  if (p.variant == Variant::SinglePass) {
    EXPECT_EQ(s.work, Work::GradTraining);
    EXPECT_EQ(p.threads(), kSinglePassThreads);
    EXPECT_GE(p.m_per_split, p.block_y) << "every thread of a slice holds a position";
    EXPECT_LE(p.m_per_split, std::int64_t{p.block_y} * (kSinglePassRegItems + p.smem_items))
        << "the slice fits what the threads hold";
    EXPECT_GE(p.tile_offset_bytes, 2 * p.threads() * s.acc_bytes);
    EXPECT_EQ(p.tile_offset_bytes % 16, 0);
    EXPECT_EQ(p.shared_bytes, p.tile_offset_bytes + 2 * p.smem_items * p.threads() * s.elem_bytes);
    // Every CTA resident at once, checked against the occupancy arithmetic.
    KernelFootprint k;
    k.threads = p.threads();
    k.registers_per_thread = kSinglePassRegisters;
    k.dynamic_shared_bytes = p.shared_bytes;
    EXPECT_GE(occupancy(d, k).co_resident(d), p.groups * p.splits);
  }
  if (p.variant == Variant::SplitM || p.variant == Variant::SinglePass)
    EXPECT_EQ(p.workspace_bytes, std::int64_t{p.splits} * s.channels * 2 * s.acc_bytes);
  else
    EXPECT_EQ(p.workspace_bytes, 0);
  EXPECT_EQ(p.index64, s.outer * s.channels * s.inner > std::numeric_limits<std::int32_t>::max());
  EXPECT_GE(p.ew_grid, 1);
}

TEST(Planner, ChannelsLastLanesTakeChannels) {
  const ShapeIn s = shape(32 * 56 * 56, 256, 1);
  const Plan p = plan_launch(s);
  expect_valid(s, p);
  EXPECT_EQ(p.block_x, 32);
  EXPECT_EQ(p.block_y, 8);
  EXPECT_EQ(p.groups, 8);
}

TEST(Planner, ChannelsFirstLanesWalkThePlane) {
  const ShapeIn s = shape(32, 256, 56 * 56);
  const Plan p = plan_launch(s);
  expect_valid(s, p);
  EXPECT_EQ(p.block_x, 1);
  EXPECT_EQ(p.block_y, 256);
  EXPECT_EQ(p.groups, 256);
}

TEST(Planner, OneChannelSplitsMOverTheWholeGpu) {
  const ShapeIn s = shape(256 * 224 * 224, 1, 1);
  const Plan p = plan_launch(s);
  expect_valid(s, p);
  EXPECT_EQ(p.block_x, 1);
  EXPECT_EQ(p.variant, Variant::SplitM);
  EXPECT_EQ(p.splits, 132 * 8) << "one wave of CTAs for the only channel";
}

TEST(Planner, ManyChannelsKeepOneCtaPerGroup) {
  const ShapeIn s = shape(64, 4096, 49);  // NCHW, 4096 groups >= one wave
  const Plan p = plan_launch(s);
  expect_valid(s, p);
  EXPECT_EQ(p.variant, Variant::CtaPerGroup);
  EXPECT_EQ(p.groups, 4096);
  EXPECT_EQ(p.workspace_bytes, 0);
}

// The two-pass rules, on the direct grads (the training grad of these shapes runs single-pass).
TEST(Planner, ShortMStaysInOneCta) {
  const ShapeIn s = shape(256, 4096, 1, Work::GradDirect);  // BN1d huge C: M = 256
  const Plan p = plan_launch(s);
  expect_valid(s, p);
  EXPECT_EQ(p.variant, Variant::CtaPerGroup);
  EXPECT_EQ(p.block_x, 32);
  EXPECT_EQ(p.groups, 128);
}

TEST(Planner, SinglePositionPerChannel) {
  for (std::int64_t c : {1, 64, 4096, 65536}) {
    const ShapeIn s = shape(1, c, 1, Work::GradDirect);
    const Plan p = plan_launch(s);
    expect_valid(s, p);
    EXPECT_EQ(p.splits, 1) << c;
    EXPECT_EQ(p.variant, Variant::CtaPerGroup) << c;
  }
}

// ---- single pass ----------------------------------------------------------------------------

// H100: 4 CTAs of 256 threads per SM (64 registers each), each with 56 KiB of shared memory:
// 2 KiB scratch, 27 positions of x and dy per thread in shared memory (f32) besides the 8 in
// registers, so 4 * 132 * 256 * 35 positions of 8 bytes: 37.8 MB.
TEST(PlannerSinglePass, CapacityIsRegistersPlusSharedMemoryOfAllSms) {
  const ShapeIn f32 = shape(1, 1, 1);
  EXPECT_EQ(single_pass_capacity_bytes(f32, DeviceLimits{}), std::int64_t{4} * 132 * 256 * 35 * 8);
  ShapeIn f16 = f32;
  f16.elem_bytes = 2;  // 4-byte accumulators: (57344 - 2048) / 1024 = 54 in shared memory
  EXPECT_EQ(single_pass_capacity_bytes(f16, DeviceLimits{}), std::int64_t{4} * 132 * 256 * 62 * 4);
}

TEST(PlannerSinglePass, ATrainingGradThatFitsOnChipRunsInOneCooperativeLaunch) {
  // 32x28x28x256 NHWC f32: 6.4 M values, 51 MB of x and dy: too big. 16x28x28x256: 25.7 MB.
  const ShapeIn s = shape(16 * 28 * 28, 256, 1);
  const Plan p = plan_launch(s);
  expect_valid(s, p);
  EXPECT_EQ(p.variant, Variant::SinglePass);
  EXPECT_EQ(p.groups, 8);
  EXPECT_EQ(p.groups * p.splits, 528 - 528 % 8) << "every co-resident CTA: 4 per SM";
  EXPECT_GT(p.smem_items, 0);
  const ShapeIn big = shape(32 * 28 * 28, 256, 1);
  EXPECT_NE(plan_launch(big).variant, Variant::SinglePass) << "51 MB stays two-pass";
  ShapeIn direct = s;
  direct.work = Work::GradDirect;
  EXPECT_NE(plan_launch(direct).variant, Variant::SinglePass) << "one pass by nature";
  ShapeIn f64 = s;
  f64.elem_bytes = 8;
  f64.acc_bytes = 8;
  EXPECT_NE(plan_launch(f64).variant, Variant::SinglePass);
}

TEST(PlannerSinglePass, SmallProblemsFillRegistersBeforeSpreading) {
  // NCHW 2x64x16x16: M = 512 per channel, 256 rows a CTA: 2 positions per thread would spread
  // over 2 CTAs per channel; registers hold 8, so one CTA per channel, 64 CTAs.
  const ShapeIn s = shape(2, 64, 256);
  const Plan p = plan_launch(s);
  expect_valid(s, p);
  EXPECT_EQ(p.variant, Variant::SinglePass);
  EXPECT_EQ(p.splits, 1);
  EXPECT_EQ(p.smem_items, 0);
  EXPECT_EQ(p.shared_bytes, 2 * 256 * 4);
}

TEST(PlannerSinglePass, TheDeviceDecides) {
  const ShapeIn s = shape(16 * 28 * 28, 256, 1);  // 25.7 MB
  DeviceLimits a100;  // 108 SMs, 164 KiB of shared memory per SM: 4 * 108 * 256 * 27 * 8 B
  a100.sm_count = 108;
  a100.shared_per_sm = 164 * 1024;
  a100.max_shared_per_block_optin = 163 * 1024;
  a100.l2_bytes = 40 * 1024 * 1024;
  EXPECT_LT(single_pass_capacity_bytes(s, a100), 26 * 1000 * 1000);
  EXPECT_NE(plan_launch(s, a100).variant, Variant::SinglePass);
  DeviceLimits no_coop;
  no_coop.cooperative_launch = false;
  EXPECT_NE(plan_launch(s, no_coop).variant, Variant::SinglePass);
  DeviceLimits tiny;  // 2 SMs: 8 CTAs for 8 channel groups, 35 positions a thread
  tiny.sm_count = 2;
  const ShapeIn fits = shape(280, 256, 1), over = shape(281, 256, 1);
  expect_valid(fits, plan_launch(fits, tiny), tiny);
  EXPECT_EQ(plan_launch(fits, tiny).variant, Variant::SinglePass);
  EXPECT_NE(plan_launch(over, tiny).variant, Variant::SinglePass);
}

TEST(Planner, MomentsAlwaysUseTheSecondStage) {
  const ShapeIn s = shape(1, 4096, 1, Work::Moments);
  const Plan p = plan_launch(s);
  expect_valid(s, p);
  EXPECT_EQ(p.variant, Variant::SplitM);
  EXPECT_EQ(p.splits, 1);
  EXPECT_EQ(p.workspace_bytes, 4096 * 2 * 4);
}

TEST(Planner, OverTwoToThe31ElementsIndexesIn64Bits) {
  const ShapeIn big = shape(4096 * 112 * 112, 64, 1);  // 3.3 G elements, NHWC
  const Plan p = plan_launch(big);
  expect_valid(big, p);
  EXPECT_TRUE(p.index64);
  EXPECT_EQ(p.variant, Variant::SplitM);
  const ShapeIn big_nchw = shape(4096, 64, 112 * 112);
  expect_valid(big_nchw, plan_launch(big_nchw));
  EXPECT_TRUE(plan_launch(big_nchw).index64);
  const ShapeIn edge = shape(std::int64_t{1} << 31, 1, 1);  // exactly 2^31
  EXPECT_TRUE(plan_launch(edge).index64);
  const ShapeIn below = shape((std::int64_t{1} << 31) - 1, 1, 1);
  EXPECT_FALSE(plan_launch(below).index64);
}

TEST(Planner, SweepOfShapesIsAlwaysValid) {
  DeviceLimits small;
  small.sm_count = 4;
  small.max_grid_y = 7;
  for (const DeviceLimits& d : {DeviceLimits{}, small})
    for (std::int64_t outer : {1, 2, 7, 32, 1000, 100003})
      for (std::int64_t c : {1, 3, 4, 17, 32, 33, 256, 4096})
        for (std::int64_t inner : {1, 2, 49, 3136})
          for (Work w : {Work::GradTraining, Work::GradDirect, Work::Moments}) {
            const ShapeIn s = shape(outer, c, inner, w);
            SCOPED_TRACE(testing::Message() << outer << "x" << c << "x" << inner);
            expect_valid(s, plan_launch(s, d), d);
          }
}

TEST(Planner, RejectsEmptyExtents) {
  EXPECT_THROW(plan_launch(shape(0, 4, 1)), Error);
  EXPECT_THROW(plan_launch(shape(4, 0, 1)), Error);
  EXPECT_THROW(plan_launch(shape(4, 4, -1)), Error);
}

TEST(Planner, VariantNames) {
  EXPECT_EQ(variant_name(Variant::CtaPerGroup), "cta-per-group");
  EXPECT_EQ(variant_name(Variant::SplitM), "split-m");
  EXPECT_EQ(variant_name(Variant::SinglePass), "single-pass");
}

}  // namespace
}  // namespace bnscope::gpu
