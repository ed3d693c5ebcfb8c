// The cpu backend reports the passes its planner chose as phases: named after the plan, in run
// order, each non-empty, none overlapping the next, all within the run.

#include <gtest/gtest.h>

#include <set>

#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/host_caches.h"
#include "engine/engine.h"
#include "problem_maker.h"

namespace bnscope::testing {
namespace {

TEST(CpuPassPhases, EveryOpReportsThePlannedPassesInOrderWithinTheRun) {
  // NCHW with C >= threads and small planes takes the planes structure, NHWC the two passes.
  const std::vector<Shape> shapes = {{2, 12, 10, 8}, {3, 9, 7, 5}, {64, 7, 7, 4}};
  std::set<std::string> seen;
  std::uint32_t seed = 7;
  for (const OpSpec& op : op_catalog())
    for (const char* format : {"NHWC", "NCHW"})
      for (bool training : {true, false})
        for (DType dtype : {DType::F32, DType::F16})
          for (const Shape& shape : shapes)
            for (int threads : {1, 3}) {
              if (op.family == OpFamily::GlobalNorm && std::string(format) == "NCHW") continue;
              const Variant v = sweep_variant(&op, format, training, dtype, shape, seed++);
              const std::string what = describe(v) + " threads=" + std::to_string(threads);
              const Prepared p = prepare(make_problem(v));
              RunContext ctx;
              ctx.threads = threads;
              const Result r = run_prepared(p, backend_or_throw("cpu"), ctx);
              const std::vector<std::string> plan = cpu_pass_plan(p, threads);
              ASSERT_FALSE(plan.empty()) << what;
              ASSERT_EQ(r.timings.size(), plan.size()) << what;
              double end = 0, sum = 0;
              for (std::size_t i = 0; i < plan.size(); ++i) {
                const PhaseTiming& t = r.timings[i];
                seen.insert(t.phase);
                EXPECT_EQ(t.phase, plan[i]) << what;
                EXPECT_EQ(t.phase.rfind("pass:", 0), 0u) << what;
                EXPECT_GT(t.seconds, 0) << what << " " << t.phase;
                EXPECT_GE(t.start, end) << what << " " << t.phase << " overlaps the pass before";
                end = t.start + t.seconds;
                sum += t.seconds;
              }
              EXPECT_LE(end, r.wall_seconds) << what;
              EXPECT_LE(sum, r.wall_seconds) << what;
            }
  // Every structure the planner has was exercised.
  for (const char* name :
       {"pass:mean", "pass:variance", "pass:reduce", "pass:write", "pass:planes", "pass:fused"})
    EXPECT_TRUE(seen.count(name)) << name;
}

TEST(CpuPassPhases, PlanFollowsModeLayoutAndThreads) {
  const OpSpec* grad = find_op("FusedBatchNormGradV3");
  // 4 channels of 7x7 planes: planes while every thread gets a channel block, two passes once
  // there are more threads than blocks; NHWC always two passes; inference one fused sweep.
  const Prepared nchw =
      prepare(make_problem(sweep_variant(grad, "NCHW", true, DType::F32, {64, 7, 7, 4}, 3)));
  EXPECT_EQ(cpu_pass_plan(nchw, 1), std::vector<std::string>{"pass:planes"});
  EXPECT_EQ(cpu_pass_plan(nchw, 64), (std::vector<std::string>{"pass:reduce", "pass:write"}));
  const Prepared nhwc =
      prepare(make_problem(sweep_variant(grad, "NHWC", true, DType::F32, {64, 7, 7, 4}, 3)));
  EXPECT_EQ(cpu_pass_plan(nhwc, 1), (std::vector<std::string>{"pass:reduce", "pass:write"}));
  const Prepared frozen =
      prepare(make_problem(sweep_variant(grad, "NHWC", false, DType::F32, {64, 7, 7, 4}, 3)));
  EXPECT_EQ(cpu_pass_plan(frozen, 1), std::vector<std::string>{"pass:fused"});
  const Prepared forward = prepare(make_problem(
      sweep_variant(find_op("FusedBatchNormV3"), "NHWC", true, DType::F32, {2, 3, 3, 4}, 3)));
  EXPECT_EQ(cpu_pass_plan(forward, 2),
            (std::vector<std::string>{"pass:mean", "pass:variance", "pass:write"}));
}

TEST(CpuPassPhases, ChannelsFirstPlanesFollowTheHostsCaches) {
  // A float32 plane whose x+dy is past a core's L2 share but within what it keeps with its part
  // of the L3 takes the planes structure; one past that, two passes.
  const cpu::HostCaches& c = cpu::host_caches();
  if (c.resident_bytes() <= c.reuse_bytes())
    GTEST_SKIP() << "no L3 on this host: " << cpu::describe(c);
  const OpSpec* grad = find_op("FusedBatchNormGradV3");
  auto plan_for = [&](std::size_t plane_bytes) {  // x+dy of one channel, one image, W = 64
    const std::int64_t h = static_cast<std::int64_t>(plane_bytes / (2 * sizeof(float) * 64));
    return cpu_pass_plan(
        prepare(make_problem(sweep_variant(grad, "NCHW", true, DType::F32, {1, h, 64, 2}, 5))), 1);
  };
  EXPECT_EQ(plan_for((c.reuse_bytes() + c.resident_bytes()) / 2),
            std::vector<std::string>{"pass:planes"});
  EXPECT_EQ(plan_for(c.resident_bytes() + 2 * sizeof(float) * 64 * 2),
            (std::vector<std::string>{"pass:reduce", "pass:write"}));
}

// The tensor passes each structure costs, as passes.h counts them (minimum 3 for a grad).
TEST(CpuPassPhases, TensorsPerPassAddUpToTheStructuresTraffic) {
  auto total = [](const Prepared& p, int threads) {
    int n = 0;
    for (const std::string& pass : cpu_pass_plan(p, threads)) n += cpu_pass_tensors(pass, *p.op);
    return n;
  };
  const OpSpec* grad = find_op("FusedBatchNormGradV3");
  const Shape shape{64, 7, 7, 4};
  EXPECT_EQ(
      total(prepare(make_problem(sweep_variant(grad, "NHWC", true, DType::F32, shape, 1))), 1), 5);
  EXPECT_EQ(
      total(prepare(make_problem(sweep_variant(grad, "NCHW", true, DType::F32, shape, 1))), 1), 3);
  EXPECT_EQ(
      total(prepare(make_problem(sweep_variant(grad, "NHWC", false, DType::F32, shape, 1))), 1), 3);
  const OpSpec* forward = find_op("FusedBatchNormV3");
  EXPECT_EQ(
      total(prepare(make_problem(sweep_variant(forward, "NHWC", true, DType::F32, shape, 1))), 1),
      4);
  EXPECT_EQ(
      total(prepare(make_problem(sweep_variant(forward, "NHWC", false, DType::F32, shape, 1))), 1),
      2);
  EXPECT_EQ(cpu_pass_tensors("kernel:cpu", *grad), 0);
  EXPECT_FALSE(cpu_pass_description("pass:write").empty());
  EXPECT_TRUE(cpu_pass_description("upload").empty());
}

}  // namespace
}  // namespace bnscope::testing
