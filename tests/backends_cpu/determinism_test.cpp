// The cpu backend's sums do not depend on the thread count or on which pass structure runs
// (channels-first planes vs two passes), so every output is bitwise identical across them.

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "engine/engine.h"
#include "problem_maker.h"
#include "tensor/error.h"
#include "tensor/parallel.h"

namespace bnscope::testing {
namespace {

Result run_with(const Problem& pb, int threads) {
  RunContext ctx;
  ctx.threads = threads;
  return run_problem(pb, "cpu", ctx);
}

TEST(CpuDeterminism, ThreadCountDoesNotChangeAnyBit) {
  // C = 2 with 3 threads leaves the channels-first planes structure for the two-pass one.
  // Small planes (inner <= 512) take the channel-blocks layout: 7x7 with C = 45 is a block of 32
  // channels and one of 13, over two chunks of rows; 3x5 with C = 130 is blocks of 128 and 2.
  // Channels-last 5x100x101x3 is three chunks of rows that end in 4 rows short of a group of 16:
  // the write pass cuts its threads' shares of rows inside chunks.
  const std::vector<Shape> shapes = {{3, 40, 40, 2}, {4, 75, 80, 3}, {2, 37, 41, 20}, {7, 9, 11, 5},
                                     {50, 7, 7, 45}, {5, 3, 5, 130}, {5, 100, 101, 3}};
  std::uint32_t seed = 100;
  for (const OpSpec& op : op_catalog())
    for (const char* format : {"NHWC", "NCHW"})
      for (bool training : {true, false})
        for (DType dtype : {DType::F32, DType::BF16, DType::F16})
          for (const Shape& shape : shapes) {
            if (op.family == OpFamily::GlobalNorm && std::string(format) == "NCHW") continue;
            const Variant v = sweep_variant(&op, format, training, dtype, shape, seed++);
            const Problem pb = make_problem(v);
            const Result one = run_with(pb, 1);
            for (int threads : {2, 3, 7})
              expect_bitwise_equal(one, run_with(pb, threads),
                                   describe(v) + " threads=" + std::to_string(threads));
          }
}

// Outputs whose x+dy+dx exceed half the last-level cache (here 3 x 17 MiB, more than any x86
// LLC instance up to 96 MiB holds) are written with non-temporal vector stores; the vector path
// must agree with itself across thread counts there too (NCHW takes the planes structure here, NHWC
// the two-pass one, freeze mode the single pass).
TEST(CpuDeterminism, LargeStreamedOutputsMatchAcrossThreadCounts) {
  std::uint32_t seed = 900;
  for (const char* format : {"NHWC", "NCHW"})
    for (bool training : {true, false})
      for (DType dtype : {DType::F32, DType::BF16}) {
        const Shape shape = dtype == DType::F32 ? Shape{2, 64, 128, 264} : Shape{2, 128, 128, 264};
        const Variant v =
            sweep_variant(find_op("FusedBatchNormGradV3"), format, training, dtype, shape, seed++);
        const Problem pb = make_problem(v);
        expect_bitwise_equal(run_with(pb, 1), run_with(pb, 2), describe(v) + " threads=2");
      }
}

// Many partials (32 chunks of 2048 channels-last channels) are combined into the totals with the
// channels split among the threads (passes.h: combine), in runs of 64 channels: the totals, and
// so every output, match one thread's.
TEST(CpuDeterminism, TotalsCombinedAcrossThreadsMatch) {
  std::uint32_t seed = 950;
  for (bool training : {true, false})
    for (DType dtype : {DType::F32, DType::BF16}) {
      const Variant v = sweep_variant(find_op("FusedBatchNormGradV3"), "NHWC", training, dtype,
                                      Shape{2, 16, 32, 2048}, seed++);
      const Problem pb = make_problem(v);
      const Result one = run_with(pb, 1);
      for (int threads : {2, 3})
        expect_bitwise_equal(one, run_with(pb, threads),
                             describe(v) + " threads=" + std::to_string(threads));
    }
}

// Beside busy threads, one per CPU, the backend's threads are preempted mid-pass and the others
// take their items (item_queue.h) and their tasks (thread_pool.h): which thread sums or writes
// which chunk then changes from run to run, and no output bit may.
TEST(CpuDeterminism, ItemsTakenOverFromPreemptedThreadsChangeNoBit) {
  std::atomic<bool> stop{false};
  std::vector<std::thread> busy;
  for (int i = 0; i < resolve_threads(0); ++i)
    busy.emplace_back([&] {
      while (!stop.load(std::memory_order_relaxed)) {
      }
    });
  std::uint32_t seed = 970;
  for (const char* format : {"NHWC", "NCHW"})
    for (bool training : {true, false})
      for (const Shape& shape : {Shape{8, 28, 28, 96}, Shape{16, 7, 7, 160}}) {
        const Variant v = sweep_variant(find_op("FusedBatchNormGradV3"), format, training,
                                        DType::F32, shape, seed++);
        const Problem pb = make_problem(v);
        const Result one = run_with(pb, 1);
        for (int run = 0; run < 3; ++run)
          expect_bitwise_equal(one, run_with(pb, 4), describe(v) + " beside busy threads");
      }
  stop = true;
  for (auto& t : busy) t.join();
}

TEST(CpuDeterminism, RepeatedRunsReuseOutputsAndMatch) {
  Variant v;
  v.op = find_op("FusedBatchNormGradV3");
  v.format = "NCHW";
  v.nhwc = {2, 37, 41, 20};
  const Prepared p = prepare(make_problem(v));
  Backend& cpu = backend_or_throw("cpu");
  Result r;
  run_prepared_into(p, cpu, r);
  const Result first = r;
  const void* storage = r.outputs[0].tensor.raw();
  run_prepared_into(p, cpu, r);
  EXPECT_EQ(r.outputs[0].tensor.raw(), storage);
  expect_bitwise_equal(first, r, "second run");
}

TEST(CpuDeterminism, CancelledRunThrows) {
  Variant v;
  v.op = find_op("FusedBatchNormGradV3");
  v.nhwc = {2, 5, 5, 4};
  std::atomic<bool> cancel{true};
  RunContext ctx;
  ctx.cancel = &cancel;
  EXPECT_THROW(run_problem(make_problem(v), "cpu", ctx), Error);
}

}  // namespace
}  // namespace bnscope::testing
