// Co-resident CTAs per SM against figures worked by hand from the sm_90 limits (2048 threads, 32
// CTAs, 65536 registers given to warps in units of 256, 228 KiB shared memory with 1 KiB reserved
// per CTA, given in units of 128 bytes), as NVIDIA's occupancy calculator gives them.

#include "occupancy.h"

#include <gtest/gtest.h>

namespace bnscope::gpu {
namespace {

KernelFootprint fp(int threads, int regs, int dynamic_shared = 0, int static_shared = 0) {
  KernelFootprint k;
  k.threads = threads;
  k.registers_per_thread = regs;
  k.dynamic_shared_bytes = dynamic_shared;
  k.static_shared_bytes = static_shared;
  return k;
}

TEST(Occupancy, ThreadsLimitSmallKernels) {
  const Occupancy o = occupancy(DeviceLimits{}, fp(256, 32, 2048));
  EXPECT_EQ(o.blocks_per_sm, 8);  // 2048 / 256
  EXPECT_EQ(o.limiter, "threads");
  EXPECT_EQ(o.co_resident(DeviceLimits{}), 8 * 132);
}

TEST(Occupancy, RegistersRoundToTheWarpAllocationUnit) {
  // 64 registers: 8 warps x 2048 = 16384 per CTA, 4 per SM.
  EXPECT_EQ(occupancy(DeviceLimits{}, fp(256, 64)).blocks_per_sm, 4);
  EXPECT_EQ(occupancy(DeviceLimits{}, fp(256, 64)).limiter, "registers");
  // 40 registers: 1280 per warp (5 units), 10240 per CTA, 6 per SM.
  EXPECT_EQ(occupancy(DeviceLimits{}, fp(256, 40)).blocks_per_sm, 6);
  // 37 registers: 1184 rounds up to 1280 as well.
  EXPECT_EQ(occupancy(DeviceLimits{}, fp(256, 37)).blocks_per_sm, 6);
}

TEST(Occupancy, SharedMemoryCountsTheReservedShare) {
  // 48 KiB + 1 KiB reserved = 50176 bytes: 233472 / 50176 = 4.65, so 4.
  const Occupancy o = occupancy(DeviceLimits{}, fp(128, 32, 48 * 1024));
  EXPECT_EQ(o.blocks_per_sm, 4);
  EXPECT_EQ(o.limiter, "shared memory");
  // Static and dynamic shared memory add up.
  EXPECT_EQ(occupancy(DeviceLimits{}, fp(128, 32, 24 * 1024, 24 * 1024)).blocks_per_sm, 4);
}

TEST(Occupancy, TheBlockLimitCapsTinyBlocks) {
  const Occupancy o = occupancy(DeviceLimits{}, fp(32, 16));
  EXPECT_EQ(o.blocks_per_sm, 32);
  EXPECT_EQ(o.limiter, "blocks");
}

TEST(Occupancy, AKernelThatFitsNowhereSaysWhy) {
  EXPECT_EQ(occupancy(DeviceLimits{}, fp(256, 300)).blocks_per_sm, 0);
  EXPECT_NE(occupancy(DeviceLimits{}, fp(256, 300)).limiter.find("registers per thread"),
            std::string::npos);
  EXPECT_EQ(occupancy(DeviceLimits{}, fp(256, 32, 228 * 1024)).blocks_per_sm, 0);
  EXPECT_EQ(occupancy(DeviceLimits{}, fp(2048, 32)).blocks_per_sm, 0);
}

}  // namespace
}  // namespace bnscope::gpu
