// The planner decides every walk and store from the host's figures (planner.h): what the measured
// hosts choose, and that each choice, whichever host's it is, gives the same bits as every other.

#include "backends/cpu/planner.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/kernels.h"
#include "engine/engine.h"
#include "problem_maker.h"

namespace bnscope::testing {
namespace {

constexpr std::size_t KiB = std::size_t{1} << 10, MiB = std::size_t{1} << 20;

cpu::Host host(std::size_t l1d, std::size_t l2, std::size_t l3, int l3_sharing,
               std::int64_t vector_bytes) {
  cpu::Host h;
  h.caches.l1d = l1d;
  h.caches.l2 = l2;
  h.caches.l3 = l3;
  h.caches.l3_sharing = l3_sharing;
  h.caches.source = "test";
  h.vector_bytes = vector_bytes;
  return h;
}

// The 2-vCPU guests the rules were measured on (sysfs counts both vCPUs among the L3's sharers).
const cpu::Host kZen3 = host(32 * KiB, 512 * KiB, 32 * MiB, 2, 32);
const cpu::Host kZen4 = host(32 * KiB, 1 * MiB, 32 * MiB, 2, 64);
const cpu::Host kZen5 = host(48 * KiB, 1 * MiB, 32 * MiB, 2, 64);

TEST(CpuPlanner, WideRowsOfTheSingleSweepWalkTilesOnlyWhereTheLaneArraysFillL1OfAWideCore) {
  const std::size_t big = 300 * MiB;  // read from memory
  EXPECT_GT(cpu::rows_walk(kZen4, 2048, 4, big, true).tile, 0);
  EXPECT_EQ(cpu::rows_walk(kZen5, 2048, 4, big, true).tile, 0);
  EXPECT_EQ(cpu::rows_walk(kZen3, 2048, 4, big, true).tile, 0);
  EXPECT_EQ(cpu::rows_walk(kZen4, 1024, 4, big, true).tile, 0);
  // The reduce pass: 16-bit sums from memory in tiles, rows that fill L1 on 32-byte vectors not.
  EXPECT_GT(cpu::rows_walk(kZen4, 1024, 2, big, false).tile, 0);
  EXPECT_GT(cpu::rows_walk(kZen4, 2048, 4, big, false).tile, 0);
  EXPECT_EQ(cpu::rows_walk(kZen3, 2048, 2, big, false).tile, 0);
  EXPECT_GT(cpu::rows_walk(kZen3, 256, 2, big, false).tile, 0);
  // Narrow float32 rows never tile.
  EXPECT_EQ(cpu::rows_walk(kZen5, 64, 4, big, false).tile, 0);
}

TEST(CpuPlanner, PairsOfRowsExceptTheZen3sRowsOfHalfAKilobyteToOneFromMemory) {
  EXPECT_FALSE(cpu::rows_walk(kZen3, 256, 4, 300 * MiB, false).pairs);  // 1 KiB rows
  EXPECT_FALSE(cpu::rows_walk(kZen3, 256, 2, 300 * MiB, false).pairs);  // 512 bytes
  EXPECT_TRUE(cpu::rows_walk(kZen3, 256, 4, 16 * MiB, false).pairs);    // within the L3
  EXPECT_TRUE(cpu::rows_walk(kZen3, 512, 4, 300 * MiB, false).pairs);   // 2 KiB
  EXPECT_TRUE(cpu::rows_walk(kZen3, 32, 4, 300 * MiB, false).pairs);    // 128 bytes
  EXPECT_TRUE(cpu::rows_walk(kZen5, 256, 4, 300 * MiB, false).pairs);
}

TEST(CpuPlanner, TheRowsSweepsPrefetchSixteenBitRowsAndFloat32OnNarrowVectors) {
  EXPECT_TRUE(cpu::write_prefetch(kZen5, 2));
  EXPECT_FALSE(cpu::write_prefetch(kZen5, 4));
  EXPECT_TRUE(cpu::write_prefetch(kZen3, 4));
  EXPECT_EQ(cpu::rows_walk(kZen5, 256, 4, 300 * MiB, false).prefetch, false);
  EXPECT_EQ(cpu::rows_walk(kZen3, 256, 4, 300 * MiB, true).prefetch, true);
  // The single sweep of rows that crowd L1 prefetches in float32 too.
  EXPECT_EQ(cpu::rows_walk(kZen5, 2048, 4, 300 * MiB, true).prefetch, true);
  EXPECT_EQ(cpu::rows_walk(kZen5, 2048, 4, 300 * MiB, false).prefetch, false);
}

TEST(CpuPlanner, DxIsStreamedPastTheThreadsShareOfTheLastLevelCache) {
  // float32 cached up to the share (all 32 MiB for the guest's 2 threads), 16-bit up to half.
  EXPECT_FALSE(cpu::stream_output(kZen5, 32 * MiB, 4, 2, true));
  EXPECT_TRUE(cpu::stream_output(kZen5, 32 * MiB + 1, 4, 2, true));
  EXPECT_FALSE(cpu::stream_output(kZen5, 16 * MiB, 2, 2, true));
  EXPECT_TRUE(cpu::stream_output(kZen5, 16 * MiB + 1, 2, 2, true));
  // One thread of the two counts on half of it.
  EXPECT_TRUE(cpu::stream_output(kZen5, 16 * MiB + 1, 4, 1, true));
  // A 16-vCPU guest reads a Xeon's 300 MiB L3 as its own; 2 threads count on an eighth.
  const cpu::Host xeon = host(48 * KiB, 2 * MiB, 300 * MiB, 16, 64);
  EXPECT_FALSE(cpu::stream_output(xeon, 19'000'000, 4, 2, true));
  EXPECT_TRUE(cpu::stream_output(xeon, 154'140'672, 4, 2, true));
  // No L3: the L2 is the last level.
  const cpu::Host no_l3 = host(32 * KiB, 1 * MiB, 0, 1, 32);
  EXPECT_FALSE(cpu::stream_output(no_l3, 1 * MiB, 4, 1, true));
  EXPECT_TRUE(cpu::stream_output(no_l3, 1 * MiB + 1, 4, 1, true));
  // The forward ops' y streams past half of the cache, whatever the threads.
  EXPECT_FALSE(cpu::stream_output(kZen5, 16 * MiB, 4, 1, false));
  EXPECT_TRUE(cpu::stream_output(kZen5, 16 * MiB + 1, 4, 64, false));
}

TEST(CpuPlanner, ChannelPlanesFollowWhatACoreKeeps) {
  ChannelView v;
  v.outer = 32;
  v.channels = 64;
  v.inner = 56 * 56;  // a float32 plane: 2 x 401 KB of x and dy
  const cpu::Geometry g = cpu::make_geometry(v);
  EXPECT_TRUE(cpu::planes_fit(kZen3, g, 4, 2));
  EXPECT_FALSE(cpu::planes_fit(host(32 * KiB, 256 * KiB, 0, 1, 32), g, 4, 2));
  EXPECT_FALSE(cpu::planes_fit(kZen3, g, 4, 65));  // fewer planes than threads
}

// Every op, layout, mode and type on shapes that cross the rules (wide rows, rows of 512 bytes
// to 1 KiB, channel planes and blocks, tensors past small caches), planned for hosts that choose
// differently (tiles and rows, pairs and single rows, prefetch or not, cached and streamed dx,
// planes and two passes): the outputs of this host's plan bit for bit. Only the plan follows the
// given host; the vectors stay this CPU's.
TEST(CpuPlanner, EveryHostsPlanGivesTheSameBits) {
  const std::vector<cpu::Host> hosts = {
      kZen3, kZen4, kZen5, host(32 * KiB, 128 * KiB, 0, 1, 32),  // everything past the caches
      host(64 * KiB, 64 * MiB, 1024 * MiB, 1, 64)};              // everything within them
  std::vector<std::unique_ptr<Backend>> backends;
  for (const cpu::Host& h : hosts) backends.push_back(make_cpu_backend(h));
  const std::vector<Shape> shapes = {
      {2, 8, 8, 2048}, {4, 8, 8, 256}, {3, 9, 9, 64}, {4, 28, 28, 16}, {2, 7, 7, 80}};
  std::uint32_t seed = 700;
  RunContext ctx;
  ctx.threads = 2;
  for (const OpSpec& op : op_catalog())
    for (const char* format : {"NHWC", "NCHW"})
      for (bool training : {true, false})
        for (DType dtype : {DType::F32, DType::BF16, DType::F16})
          for (const Shape& shape : shapes) {
            if (op.family == OpFamily::GlobalNorm && std::string(format) == "NCHW") continue;
            const Variant v = sweep_variant(&op, format, training, dtype, shape, seed++);
            const Prepared p = prepare(make_problem(v));
            const Result want = run_prepared(p, backend_or_throw("cpu"), ctx);
            for (std::size_t i = 0; i < backends.size(); ++i)
              expect_bitwise_equal(want, run_prepared(p, *backends[i], ctx),
                                   describe(v) + " host " + std::to_string(i));
          }
}

}  // namespace
}  // namespace bnscope::testing
