// The grads store dx through the caches where x, dy and dx fit the part of the last-level cache
// the run's threads can count on, stream it past them where they outgrow half of that cache,
// and in between take both ways in turn over whole calls (dx_stores.h). Neither may change a bit,
// and while that trial runs the trials inside its calls wait.

#include "backends/cpu/dx_stores.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "backends/cpu/kernels.h"
#include "engine/engine.h"
#include "problem_maker.h"

namespace bnscope::testing {
namespace {

using cpu::Stores;
constexpr std::size_t MiB = std::size_t{1} << 20;

cpu::HostCaches caches(std::size_t l2, std::size_t l3, int sharing) {
  cpu::HostCaches c;
  c.l1d = 32 << 10;
  c.l2 = l2;
  c.l3 = l3;
  c.l3_sharing = sharing;
  c.source = "test";
  return c;
}

bool stores_forced() {
  return std::getenv("BNSCOPE_STORES") != nullptr;
}

TEST(DxStores, CachedInHalfTheThreadsShareStreamedPastTheWholeCacheMeasuredBetween) {
  if (stores_forced()) GTEST_SKIP() << "BNSCOPE_STORES forces the stores";
  // A 2-vCPU guest whose sysfs counts both among the L3's sharers.
  const cpu::HostCaches guest = caches(1 * MiB, 32 * MiB, 2);
  EXPECT_EQ(cpu::dx_stores(guest, 16 * MiB, 2), Stores::Cached);
  EXPECT_EQ(cpu::dx_stores(guest, 16 * MiB + 1, 2), Stores::Measured);
  EXPECT_EQ(cpu::dx_stores(guest, 32 * MiB, 2), Stores::Measured);
  EXPECT_EQ(cpu::dx_stores(guest, 32 * MiB + 1, 2), Stores::Streamed);
  EXPECT_EQ(cpu::dx_stores(guest, 16 * MiB, 4), Stores::Cached);
  // One thread of the two counts on half of it.
  EXPECT_EQ(cpu::dx_stores(guest, 8 * MiB, 1), Stores::Cached);
  EXPECT_EQ(cpu::dx_stores(guest, 8 * MiB + 1, 1), Stores::Measured);
  EXPECT_EQ(cpu::dx_stores(guest, 32 * MiB + 1, 1), Stores::Streamed);
  // No L3: the L2 is the last level.
  const cpu::HostCaches no_l3 = caches(1 * MiB, 0, 1);
  EXPECT_EQ(cpu::dx_stores(no_l3, 512 << 10, 1), Stores::Cached);
  EXPECT_EQ(cpu::dx_stores(no_l3, (512 << 10) + 1, 1), Stores::Measured);
  EXPECT_EQ(cpu::dx_stores(no_l3, 1 * MiB + 1, 1), Stores::Streamed);
  // Each layout of a size has its own trial: the pass structures differ.
  EXPECT_FALSE(cpu::store_key(16 * MiB, 64, false, cpu::simd::Elem::F32) ==
               cpu::store_key(16 * MiB, 64, true, cpu::simd::Elem::F32));
  // The forward ops stream past half of the cache, whatever the threads.
  EXPECT_FALSE(cpu::output_streamed(guest, 16 * MiB));
  EXPECT_TRUE(cpu::output_streamed(guest, 16 * MiB + 1));
}

TEST(DxStores, ASixteenVcpuGuestsTwoThreadsCountOnAnEighthOfItsL3) {
  if (stores_forced()) GTEST_SKIP() << "BNSCOPE_STORES forces the stores";
  // A Xeon's 300 MiB L3 as a 16-vCPU guest reads it, 2 threads: the ResNet-50 layers of 38.5,
  // 154 and 308 MB are measured.
  const cpu::HostCaches xeon = caches(2 * MiB, 300 * MiB, 16);
  EXPECT_EQ(xeon.llc_share_bytes(2), 300 * MiB / 8);
  EXPECT_EQ(cpu::dx_stores(xeon, 19'000'000, 2), Stores::Cached);
  EXPECT_EQ(cpu::dx_stores(xeon, 38'535'168, 2), Stores::Measured);
  EXPECT_EQ(cpu::dx_stores(xeon, 154'140'672, 2), Stores::Measured);
  EXPECT_EQ(cpu::dx_stores(xeon, 308'281'344, 2), Stores::Measured);
  EXPECT_EQ(cpu::dx_stores(xeon, 300 * MiB + 1, 2), Stores::Streamed);
  // More threads than sharers count on all of it, none on one sharer's part.
  EXPECT_EQ(xeon.llc_share_bytes(64), 300 * MiB);
  EXPECT_EQ(xeon.llc_share_bytes(0), 300 * MiB / 16);
}

TEST(DxStores, TheEnvironmentForcesAWayForEveryCall) {
  if (stores_forced()) GTEST_SKIP() << "BNSCOPE_STORES forces the stores";
  const cpu::HostCaches guest = caches(1 * MiB, 32 * MiB, 2);
  setenv("BNSCOPE_STORES", "cached", 1);
  EXPECT_EQ(cpu::dx_stores(guest, 1 << 10, 2), Stores::Measured);
  EXPECT_EQ(cpu::store_walks(true).known(cpu::store_key(1 << 10, 64, false, cpu::simd::Elem::F32)),
            false);
  setenv("BNSCOPE_STORES", "streamed", 1);
  EXPECT_EQ(cpu::dx_stores(guest, 1 << 30, 2), Stores::Measured);
  EXPECT_EQ(cpu::store_walks(false).known(cpu::store_key(1 << 30, 64, true, cpu::simd::Elem::F32)),
            true);
  unsetenv("BNSCOPE_STORES");
  EXPECT_EQ(cpu::dx_stores(guest, 1 << 30, 2), Stores::Streamed);
}

TEST(DxStores, TrialsWaitWhileACallTrialIsUnderWay) {
  cpu::Walks walks("first", "second");
  const cpu::WalkKey key{256, cpu::simd::Elem::F32, true};
  {
    const cpu::TrialPause outer(true);
    {
      const cpu::TrialPause inner(true);
      EXPECT_TRUE(cpu::trials_paused());
    }
    EXPECT_TRUE(cpu::trials_paused());
    cpu::PassTrial pass(key, true, walks);
    EXPECT_FALSE(pass.timed());
    EXPECT_TRUE(pass.first());
    const cpu::WalkTrial chunks(key, 4 * cpu::WalkTrial::kMinChunks, true, walks);
    EXPECT_FALSE(chunks.timed());
  }
  const cpu::TrialPause off(false);
  EXPECT_FALSE(cpu::trials_paused());
  cpu::PassTrial pass(key, true, walks);
  EXPECT_TRUE(pass.timed());
}

// Channels-last grads of float32 tensors of 0.75 of this host's last-level cache share for one
// thread (between the bounds wherever a last-level cache is), one thread: the
// calls take both stores in turn until the trial decides, within its eight trials of 16 calls,
// with the same bits as every call before and as each way forced; until then the training
// grads' write walk, a trial inside the calls, times nothing.
TEST(DxStores, TheCallTrialDecidesWithTheSameBitsAndHoldsTheTrialsInside) {
  if (stores_forced()) GTEST_SKIP() << "BNSCOPE_STORES forces the stores";
  if (std::getenv("BNSCOPE_WRITE_WALK")) GTEST_SKIP() << "BNSCOPE_WRITE_WALK forces the walk";
  const cpu::HostCaches& host = cpu::host_caches();
  const std::size_t share = host.llc_share_bytes(1);
  const std::size_t bytes = share / 4 * 3;
  if (cpu::dx_stores(host, bytes, 1) != Stores::Measured)
    GTEST_SKIP() << "no last-level cache on this host (" << cpu::describe(host)
                 << "): nothing to measure";
  const std::int64_t channels = 256;
  const std::int64_t rows = static_cast<std::int64_t>(bytes / (3 * 4 * channels));
  const Shape shape{1, rows, 1, channels};
  const std::size_t tensor_bytes = 3 * 4 * static_cast<std::size_t>(rows * channels);
  ASSERT_EQ(cpu::dx_stores(host, tensor_bytes, 1), Stores::Measured);
  RunContext ctx;
  ctx.threads = 1;
  std::uint32_t seed = 300;
  for (bool training : {true, false}) {
    const Variant v =
        sweep_variant(find_op("FusedBatchNormGradV3"), "NHWC", training, DType::F32, shape, seed++);
    const Problem pb = make_problem(v);
    cpu::Walks& stores = cpu::store_walks(training);
    const cpu::WalkKey key = cpu::store_key(tensor_bytes, channels, false, cpu::simd::Elem::F32);
    const cpu::WalkKey write_key{
        channels, cpu::simd::Elem::F32,
        2.0 * static_cast<double>(tensor_bytes) / 3 > static_cast<double>(host.llc_bytes())};
    stores.clear();
    cpu::write_walks().clear();
    const Result first = run_problem(pb, "cpu", ctx);
    int runs = 1;
    const int most = (cpu::Walks::kMaxTrials + 1) * 2 * cpu::PassTrial::kPasses;
    for (; !stores.first(key) && runs < most; ++runs) {
      EXPECT_EQ(cpu::write_walks().trials(write_key), 0) << describe(v) << " run " << runs;
      expect_bitwise_equal(first, run_problem(pb, "cpu", ctx),
                           describe(v) + " run " + std::to_string(runs + 1) + " of the trial");
    }
    ASSERT_TRUE(stores.first(key).has_value()) << describe(v) << ": " << stores.describe();
    EXPECT_GE(stores.trials(key), 2) << stores.describe();
    EXPECT_NE(stores.describe().find(" MB of tensors, 256 channels float32 channels-last: "),
              std::string::npos)
        << stores.describe();
    for (const char* way : {"streamed", "cached"}) {
      setenv("BNSCOPE_STORES", way, 1);
      expect_bitwise_equal(first, run_problem(pb, "cpu", ctx), describe(v) + " " + way);
    }
    unsetenv("BNSCOPE_STORES");
    stores.clear();
    cpu::write_walks().clear();
  }
}

}  // namespace
}  // namespace bnscope::testing
