#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "backends/backend.h"
#include "backends/cpu/cpu_backend.h"
#include "engine/engine.h"
#include "engine/output_pool.h"
#include "ops/outputs.h"
#include "ops/sample.h"
#include "profile/copy_bandwidth.h"
#include "profile/event_store.h"
#include "profile/profiler.h"
#include "profile/timing_stats.h"
#include "profile/traffic.h"
#include "tensor/error.h"

namespace bnscope {
namespace {

TEST(TimingStats, MinMedianMax) {
  const std::vector<double> odd{5, 1, 3};
  TimingStats s = timing_stats(odd);
  EXPECT_EQ(s.count, 3);
  EXPECT_EQ(s.min, 1);
  EXPECT_EQ(s.median, 3);
  EXPECT_EQ(s.max, 5);
  EXPECT_EQ(s.mean, 3);
  const std::vector<double> even{4, 1, 3, 2};
  EXPECT_EQ(timing_stats(even).median, 2.5);
  EXPECT_EQ(timing_stats({}).count, 0);
}

TEST(Traffic, GradOpsMoveThreeDataPassesPlusChannelStatistics) {
  for (DType t : {DType::F32, DType::F16}) {
    for (bool training : {true, false}) {
      SampleSpec spec;
      spec.shape = {2, 4, 4, 8};  // E = 256, C = 8
      spec.dtype = t;
      spec.is_training = training;
      Problem p = random_problem(spec);
      p.inputs["reserve_space_3"] = Tensor(DType::F32, {0});
      const Traffic tr = minimum_traffic(prepare(p));
      EXPECT_EQ(tr.data_passes, 3);
      EXPECT_EQ(tr.data_bytes, 3 * 256 * static_cast<std::int64_t>(dtype_size(t)));
      // scale, reserve_space_1, reserve_space_2 read; scale_backprop, offset_backprop written;
      // float statistics: 20 bytes per channel.
      EXPECT_EQ(tr.channel_bytes, 20 * 8);
      EXPECT_EQ(tr.total(), tr.data_bytes + 160);
    }
  }
}

TEST(Traffic, GlobalGradAndForward) {
  SampleSpec g;
  g.op = "BatchNormWithGlobalNormalizationGrad";
  g.shape = {1, 2, 3, 4};  // E = 24, C = 4
  const Traffic tg = minimum_traffic(prepare(random_problem(g)));
  EXPECT_EQ(tg.data_bytes, 3 * 24 * 4);
  EXPECT_EQ(tg.channel_bytes, 7 * 4 * 4);  // m, v, gamma read; dm, dv, db, dg written
  SampleSpec f;
  f.op = "FusedBatchNormV2";
  f.shape = {1, 2, 3, 4};
  f.is_training = false;
  const Traffic tf = minimum_traffic(prepare(random_problem(f)));
  EXPECT_EQ(tf.data_passes, 2);  // x read, y written
  EXPECT_EQ(tf.data_bytes, 2 * 24 * 4);
}

TEST(EventStore, InternsNames) {
  EventStore s;
  s.add("kernel:cpu", "cpu", 0, 0.0, 1.0);
  s.add("kernel:cpu", "cpu", 0, 1.0, 2.0);
  s.add("upload", "cuda", 1, 0.5, 0.25);
  EXPECT_EQ(s.names().size(), 4u);
  EXPECT_EQ(s.events()[0].name, s.events()[1].name);
  EXPECT_EQ(s.name(s.events()[2].backend), "cuda");
  EventStore t;
  t.append(s, 10);
  EXPECT_EQ(t.events()[2].start, 10.5);
}

// A training problem of 256 elements in 8 channels: profiles of it take microseconds.
Problem small_problem() {
  SampleSpec spec;
  spec.shape = {2, 4, 4, 8};
  return random_problem(spec);
}

TEST(Profiler, StatisticsOnAFakeClock) {
  SampleSpec spec;
  spec.shape = {2, 2, 2, 4};
  const Problem p = random_problem(spec);
  // Each repetition reads the clock twice; the runs take 3, 1, 4 and 2 units of 2^-10 s
  // (binary fractions, so the arithmetic below is exact).
  const double u = 1.0 / 1024;
  const std::vector<double> durations{3 * u, 1 * u, 4 * u, 2 * u};
  std::vector<double> ticks;
  double now = 0;
  for (double d : durations) {
    ticks.push_back(now);
    ticks.push_back(now + d);
    now += d + u;
  }
  std::size_t next = 0;
  ProfileOptions o;
  o.reps = 4;
  o.warmup = 1;
  o.clock = [&] { return ticks.at(next++); };
  o.copy_probe = [](int, std::size_t) { return 10.0; };
  const Profile prof = profile_problem(p, "cpu", o);
  EXPECT_EQ(next, ticks.size());
  EXPECT_EQ(prof.wall.min, 1 * u);
  EXPECT_EQ(prof.wall.median, 2.5 * u);
  EXPECT_EQ(prof.wall.max, 4 * u);
  EXPECT_EQ(prof.wall.mean, 2.5 * u);
  ASSERT_FALSE(prof.phases.empty());
  EXPECT_EQ(prof.phases[0].phase, "kernel:cpu");
  EXPECT_EQ(prof.phases[0].samples, durations);
  EXPECT_EQ(prof.kernel_seconds, 2.5 * u);
  const double bytes = static_cast<double>(prof.traffic.total());
  EXPECT_EQ(prof.traffic.data_bytes, 3 * 32 * 4);
  EXPECT_DOUBLE_EQ(prof.achieved_gbps, bytes / (2.5 * u) / 1e9);
  EXPECT_EQ(prof.roofline_gbps, 10.0);
  EXPECT_DOUBLE_EQ(prof.roofline_fraction, prof.achieved_gbps / 10.0);
  // One kernel:cpu event per repetition, placed relative to the first.
  int runs = 0;
  for (const TraceEvent& e : prof.events.events())
    if (prof.events.name(e.name) == "kernel:cpu") {
      EXPECT_NEAR(e.duration, durations[static_cast<std::size_t>(runs)], 1e-12);
      ++runs;
    }
  EXPECT_EQ(runs, 4);
  EXPECT_EQ(prof.events.events()[0].start, 0);
}

TEST(Profiler, CpuPassesArePhasesAndEventsWithinEachRun) {
  SampleSpec spec;
  spec.shape = {8, 64, 64, 32};  // 1 Mi elements: the passes are most of the run
  const Problem problem = random_problem(spec);
  ProfileOptions o;
  o.reps = 5;
  o.warmup = 1;
  o.threads = 2;
  o.measure_copy = false;
  const Profile prof = profile_problem(problem, "cpu", o);
  const std::vector<std::string> plan = cpu_pass_plan(prepare(problem), o.threads);
  ASSERT_FALSE(plan.empty());
  // The profile carries what the backend says of those passes, in the same order.
  ASSERT_EQ(prof.phase_plan.size(), plan.size());
  for (std::size_t i = 0; i < plan.size(); ++i) {
    EXPECT_EQ(prof.phase_plan[i].name, plan[i]);
    EXPECT_FALSE(prof.phase_plan[i].description.empty()) << plan[i];
    EXPECT_GT(prof.phase_plan[i].x_tensors, 0) << plan[i];
  }
  EXPECT_EQ(prof.code_path, cpu_code_path());
  // kernel:cpu, the whole run, then one phase per planned pass in run order.
  ASSERT_EQ(prof.phases.size(), 1 + plan.size());
  EXPECT_EQ(prof.phases[0].phase, "kernel:cpu");
  EXPECT_EQ(prof.kernel_seconds, prof.phases[0].stats.median);
  for (std::size_t i = 0; i < plan.size(); ++i) {
    EXPECT_EQ(prof.phases[1 + i].phase, plan[i]);
    EXPECT_EQ(prof.phases[1 + i].samples.size(), 5u);
    EXPECT_GT(prof.phases[1 + i].stats.min, 0);
  }
  // Events: each run on the host track, its passes on the pass track inside it, in order and
  // without overlap; together they cover most of it.
  std::vector<TraceEvent> runs, passes;
  for (const TraceEvent& e : prof.events.events())
    (e.track == kHostTrack ? runs : passes).push_back(e);
  ASSERT_EQ(runs.size(), 5u);
  ASSERT_EQ(passes.size(), 5 * plan.size());
  double best_cover = 0;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    EXPECT_EQ(prof.events.name(runs[r].name), "kernel:cpu");
    const double run_end = runs[r].start + runs[r].duration;
    double at = runs[r].start, sum = 0;
    for (std::size_t i = 0; i < plan.size(); ++i) {
      const TraceEvent& e = passes[r * plan.size() + i];
      EXPECT_EQ(e.track, kPassTrack);
      EXPECT_EQ(prof.events.name(e.name), plan[i]);
      EXPECT_GT(e.duration, 0);
      EXPECT_GE(e.start, at) << "rep " << r << " pass " << i;
      at = e.start + e.duration;
      sum += e.duration;
    }
    EXPECT_LE(at, run_end + 1e-12) << "rep " << r;
    EXPECT_LE(sum, runs[r].duration) << "rep " << r;
    best_cover = std::max(best_cover, sum / runs[r].duration);
  }
  EXPECT_GT(best_cover, 0.5);
}

// An adaptive profile: one warm-up, at least min_reps timed runs, more only while one more run
// would end within the budget, never more than reps. A clock that moves 0.1 s per reading makes
// every run 0.1 s long and the time spent known.
Profile adaptive_profile(const Problem& p, int reps, double budget) {
  int readings = 0;
  ProfileOptions o;
  o.reps = reps;
  o.warmup = 2;
  o.time_budget = budget;
  o.clock = [&readings] { return 0.1 * readings++; };
  o.measure_copy = false;
  return profile_problem(p, "cpu", o);
}

TEST(Profiler, AdaptiveRepetitionsStopAtTheBudget) {
  const Problem p = small_problem();
  // The start reads 0, runs 0-2 read 0.1-0.6; from run 3 on, a check reads 0.3 k - 0.2 first
  // and run k is made when that plus the last run's 0.1 s fits: 0.8, 1.1, 1.4, 1.7.
  EXPECT_EQ(adaptive_profile(p, 10, 0.5).reps, 3);   // the minimum, though past the budget
  EXPECT_EQ(adaptive_profile(p, 10, 1.05).reps, 4);  // 0.8 fits, 1.1 does not
  EXPECT_EQ(adaptive_profile(p, 10, 1.65).reps, 6);  // 1.4 fits, 1.7 does not
  EXPECT_EQ(adaptive_profile(p, 4, 100).reps, 4);    // never more than reps
  EXPECT_EQ(adaptive_profile(p, 2, 100).reps, 2);    // nor a minimum above it
  const Profile prof = adaptive_profile(p, 10, 1.65);
  EXPECT_EQ(prof.warmup, 1);  // one warm-up of the 2 asked for
  EXPECT_EQ(prof.time_budget, 1.65);
  EXPECT_EQ(prof.wall.count, 6);
  ASSERT_FALSE(prof.phases.empty());
  EXPECT_EQ(prof.phases[0].samples.size(), 6u);
}

// The cpu backend, counting its runs: what a profile made, not only what it reports.
class CountingCpu : public Backend {
 public:
  std::string_view name() const override { return "counting-cpu"; }
  std::string_view description() const override { return "cpu, counting runs"; }
  void run(const Prepared& p, Result& result, const RunContext& ctx) override {
    ++runs;
    BackendRegistry::instance().find("cpu")->run(p, result, ctx);
  }
  int runs = 0;
};

CountingCpu& counting_cpu() {
  static CountingCpu* backend = [] {
    auto owned = std::make_unique<CountingCpu>();
    CountingCpu* raw = owned.get();
    BackendRegistry::instance().add(std::move(owned));
    return raw;
  }();
  backend->runs = 0;
  return *backend;
}

const void* first_buffer(const Result& r) {
  return r.outputs.empty() ? nullptr : std::as_const(r.outputs.front().tensor).raw();
}

// A profile runs into the set the engine's pool holds and gives it back; a set its backend last
// wrote for this very preparation stands for the first warm-up, any other set for none.
TEST(Profiler, AnEarlierRunCountsAsTheWarmUp) {
  const Problem p = small_problem();
  const Prepared prepared = prepare(p);
  output_pool().clear();
  ProfileOptions o;
  o.reps = 10;
  o.warmup = 2;
  o.measure_copy = false;
  o.time_budget = 1e-9;  // the minimum: one warm-up and 3 timed runs
  CountingCpu& counting = counting_cpu();
  Profile prof = profile_prepared(prepared, "counting-cpu", o);
  EXPECT_EQ(counting.runs, 4);
  EXPECT_EQ(prof.warmup, 1);
  EXPECT_EQ(prof.reps, 3);
  // Its set is back in the pool, last written by it for this preparation: no warm-up run now.
  ASSERT_EQ(output_pool().held().size(), 1u);
  counting.runs = 0;
  prof = profile_prepared(prepared, "counting-cpu", o);
  EXPECT_EQ(counting.runs, 3);
  EXPECT_EQ(prof.warmup, 1);
  // Another backend's run of the same preparation: its buffers are written into, but the
  // warm-up is made.
  output_pool().clear();
  Result verdict = run_prepared(prepared, backend_or_throw("cpu"));
  const void* buffer = first_buffer(verdict);
  output_pool().give(std::move(verdict));
  counting.runs = 0;
  prof = profile_prepared(prepared, "counting-cpu", o);
  EXPECT_EQ(counting.runs, 4);
  EXPECT_EQ(prof.warmup, 1);
  ASSERT_EQ(output_pool().held().size(), 1u);
  EXPECT_EQ(first_buffer(output_pool().held().front()), buffer);
  // Its own run of another preparation of the same problem is not this one's warm-up.
  const Prepared again = prepare(p);
  counting.runs = 0;
  prof = profile_prepared(again, "counting-cpu", o);
  EXPECT_EQ(counting.runs, 4);
  // A fixed profile makes its warm-ups past the earlier run: 2 in all, one of them made here.
  o.time_budget = 0;
  o.reps = 2;
  counting.runs = 0;
  prof = profile_prepared(again, "counting-cpu", o);
  EXPECT_EQ(counting.runs, 3);
  EXPECT_EQ(prof.warmup, 2);
  EXPECT_EQ(prof.reps, 2);
  EXPECT_EQ(prof.time_budget, 0);
  o.warmup = 0;
  counting.runs = 0;
  prof = profile_prepared(again, "counting-cpu", o);
  EXPECT_EQ(counting.runs, 2);
  EXPECT_EQ(prof.warmup, 0);
  output_pool().clear();
}

// A run that fails mid-profile (a cancel) still gives the set back, whole, for the next run.
TEST(Profiler, ACancelledProfileGivesItsSetBack) {
  const Prepared prepared = prepare(small_problem());
  output_pool().clear();
  Result set = run_prepared(prepared, backend_or_throw("cpu"));
  const void* buffer = first_buffer(set);
  output_pool().give(std::move(set));
  std::atomic<bool> cancel{true};
  ProfileOptions o;
  o.measure_copy = false;
  o.cancel = &cancel;
  EXPECT_THROW(profile_prepared(prepared, "cpu", o), Error);
  ASSERT_EQ(output_pool().held().size(), 1u);
  EXPECT_EQ(first_buffer(output_pool().held().front()), buffer);
  output_pool().clear();
}

TEST(Profiler, MakesExactlyTheWarmUpsAndRepsAskedFor) {
  // No backend times itself to choose how to run, so nothing adds runs to a fixed profile: the
  // backend runs warmup + reps times, and the profile says so.
  const Problem p = small_problem();
  ProfileOptions o;
  o.measure_copy = false;
  for (const auto& [warmup, reps] : {std::pair{2, 3}, std::pair{0, 4}, std::pair{5, 1}}) {
    o.warmup = warmup;
    o.reps = reps;
    CountingCpu& backend = counting_cpu();
    const Profile prof = profile_problem(p, "counting-cpu", o);
    EXPECT_EQ(backend.runs, warmup + reps);
    EXPECT_EQ(prof.warmup, warmup);
    EXPECT_EQ(prof.reps, reps);
  }
}

TEST(Profiler, ACancelLandsInAnyRun) {
  const Problem p = small_problem();
  const std::atomic<bool> cancelled{true};
  ProfileOptions o;
  o.reps = 3;
  o.measure_copy = false;
  o.cancel = &cancelled;
  CountingCpu& counting = counting_cpu();
  try {
    profile_problem(p, "counting-cpu", o);
    ADD_FAILURE() << "a cancelled profile ran to its end";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Cancelled) << e.what();
  }
  EXPECT_EQ(counting.runs, 0);  // stopped before the first warm-up's run
}

TEST(Profiler, CaveatForAnEmulationAndARunAboveItsCopyRoofline) {
  Profile p;
  p.backend = "cpu";
  p.roofline_gbps = 12.9;
  p.roofline_source = "copy bandwidth measured in this run";
  p.roofline_fraction = 1.04;  // within the two measurements' noise
  EXPECT_EQ(speed_caveat(p), "");
  p.roofline_fraction = 1.39;
  EXPECT_EQ(speed_caveat(p),
            "cpu: 139% of the 12.9 GB/s roofline: the tensors stayed in the caches between "
            "repetitions, or the machine was busier while the roofline was measured");
  p.roofline_source = "device peak bandwidth";  // a datasheet figure, not a measurement
  EXPECT_EQ(speed_caveat(p), "");
  p.measures_speed = false;
  EXPECT_EQ(speed_caveat(p),
            "cpu: the times of an emulation on this CPU, not the speed of what it emulates");
}

TEST(Profiler, RejectsZeroReps) {
  ProfileOptions o;
  o.reps = 0;
  EXPECT_THROW(profile_problem(random_problem({}), "cpu", o), Error);
}

TEST(CopyBandwidth, SmallArraysGiveAPositiveFigure) {
  EXPECT_GT(measure_copy_bandwidth(1, std::size_t{1} << 20), 0.0);
}

// A kept probe measures again in the arrays it allocated once; a size under a line is refused.
TEST(CopyBandwidth, AKeptProbeMeasuresAgainAndAgain) {
  CopyProbe probe(2, (std::size_t{1} << 20) + 100);
  EXPECT_GT(probe.measure(), 0.0);
  EXPECT_GT(probe.measure(), 0.0);
  EXPECT_THROW(CopyProbe(1, 63), Error);
}

// The probe in the caller's memory (a finished run's output buffer): it copies src into dst,
// and refuses buffers that are not 64-byte aligned.
TEST(CopyBandwidth, RunsInTheCallersBuffers) {
  Tensor t = Tensor::uninitialized(DType::F32, {1 << 19});  // 2 MiB, 64-byte aligned
  auto* base = static_cast<std::byte*>(t.raw());
  const std::size_t half = t.nbytes() / 2;
  // The caller's bytes are copied as they are (no first-touch pass writes over them).
  std::memset(base, 7, half);
  std::memset(base + half, 0, half);
  EXPECT_GT(measure_copy_bandwidth(2, base, base + half, half), 0.0);
  EXPECT_EQ(base[0], std::byte{7});
  EXPECT_EQ(base[half - 1], std::byte{7});
  EXPECT_EQ(base[half], std::byte{7});  // dst holds src's bytes
  EXPECT_EQ(base[2 * half - 1], std::byte{7});
  EXPECT_THROW(measure_copy_bandwidth(1, base + 8, base + half, 1024), Error);
}

// The read probe checks its own sums, so a positive figure means every byte of both arrays was
// read in every repetition, on any number of threads (odd sizes leave uneven slices).
TEST(ReadBandwidth, ReadsBothArraysOnAnyThreadCount) {
  for (int threads : {1, 2, 3})
    EXPECT_GT(measure_read_bandwidth(threads, (std::size_t{1} << 20) + 64 * 7), 0.0) << threads;
  EXPECT_THROW(measure_read_bandwidth(1, 63), Error);
}

// The stream probe checks what it wrote (every byte the sum of its two inputs), so a positive
// figure means the slices covered all three arrays, on any number of threads.
TEST(StreamBandwidth, WritesTheSumOfBothArraysOnAnyThreadCount) {
  for (int threads : {1, 2, 3})
    EXPECT_GT(measure_stream_bandwidth(threads, (std::size_t{1} << 20) + 64 * 7), 0.0) << threads;
  EXPECT_THROW(measure_stream_bandwidth(1, 63), Error);
}

}  // namespace
}  // namespace bnscope

namespace bnscope::test {

TEST(Traffic, BytesReadInDecimalUnits) {
  EXPECT_EQ(bytes_text(12), "12 B");
  EXPECT_EQ(bytes_text(602800), "602.8 kB");
  EXPECT_EQ(bytes_text(205.52e6), "205.52 MB");
  EXPECT_EQ(bytes_text(1.234e9), "1.23 GB");
}

}  // namespace bnscope::test
