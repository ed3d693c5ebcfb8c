// oneDNN batch-normalization backward on the shapes of bench_cases.h, the peer for the cpu
// backend (TensorFlow's x86 CPU kernels rewrite FusedBatchNormGrad to oneDNN by default).
//
// Same counters as bnscope_bench (GBps under the minimum-traffic model, frac_copy against the
// same copy probe) so scripts/peer_merge.py joins the two by name. Outputs are preallocated;
// only execute() + wait() is timed. Threads: oneDNN uses OpenMP, so set OMP_NUM_THREADS (the
// copy probe uses BNSCOPE_BENCH_THREADS; scripts/peer_bench.sh sets both). NCHW shapes are run
// in plain nchw and also in oneDNN's own blocked nChw16c ("NCHW16c", reorders not timed).
// f16 has no oneDNN batch-norm in this version; GlobalNormalizationGrad maps to
// use_global_stats (frozen) with the same traffic. alternate/ cases time bnscope's cpu backend
// and oneDNN in turn in one process (run_alternating).

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <dnnl.hpp>
#include <string>
#include <unordered_map>
#include <vector>

#include "bench_cases.h"
#include "bench_problem.h"
#include "bench_util.h"
#include "profile/alternation.h"
#include "profile/timing_stats.h"

namespace bnscope {
namespace {

using tag = dnnl::memory::format_tag;
using dt = dnnl::memory::data_type;

void fill(dnnl::memory& m, float lo, float hi) {
  const std::size_t bytes = m.get_desc().get_size();
  auto* p = static_cast<unsigned char*>(m.get_data_handle());
  if (m.get_desc().data_type() == dt::f32) {
    float* f = reinterpret_cast<float*>(p);
    for (std::size_t i = 0; i < bytes / 4; ++i) f[i] = lo + (hi - lo) * float(i % 1009) / 1009.f;
  } else {  // bf16: upper half of the float
    auto* h = reinterpret_cast<std::uint16_t*>(p);
    for (std::size_t i = 0; i < bytes / 2; ++i) {
      float f = lo + (hi - lo) * float(i % 1009) / 1009.f;
      std::uint32_t u;
      std::memcpy(&u, &f, 4);
      h[i] = static_cast<std::uint16_t>(u >> 16);
    }
  }
}

// One case's primitive with its preallocated arguments; call() runs it once to completion.
struct OnednnCase {
  dnnl::engine eng{dnnl::engine::kind::cpu, 0};
  dnnl::stream strm{eng};
  dnnl::batch_normalization_backward::primitive_desc bwd;
  dnnl::batch_normalization_backward prim;
  std::unordered_map<int, dnnl::memory> args;
  double bytes = 0;  // minimum traffic of one call

  OnednnCase(const BenchCase& c, tag layout) {
    const Shape& x = c.shape;
    const dnnl::memory::dims dims = {x[0], x[3], x[1], x[2]};
    const dt type = c.dtype == DType::BF16 ? dt::bf16 : dt::f32;
    const dnnl::memory::desc data_md(dims, type, layout);
    auto flags = dnnl::normalization_flags::use_scale | dnnl::normalization_flags::use_shift;
    if (!c.training) flags = flags | dnnl::normalization_flags::use_global_stats;
    const float eps = 1e-3f;
    dnnl::batch_normalization_forward::primitive_desc fwd(
        {dnnl::prop_kind::forward_training, data_md, eps, flags}, eng);
    bwd = dnnl::batch_normalization_backward::primitive_desc(
        {dnnl::prop_kind::backward, data_md, data_md, eps, flags}, eng, fwd);
    dnnl::memory src(bwd.src_desc(), eng), ddst(bwd.diff_dst_desc(), eng),
        dsrc(bwd.diff_src_desc(), eng);
    dnnl::memory mean(bwd.mean_desc(), eng), var(bwd.variance_desc(), eng);
    const dnnl::memory::desc c_md({x[3]}, dt::f32, tag::a);
    dnnl::memory scale(c_md, eng), shift(c_md, eng), dscale(c_md, eng), dshift(c_md, eng);
    fill(src, -1, 3);
    fill(ddst, -1, 1);
    fill(mean, 0.9f, 1.1f);
    fill(var, 1.2f, 1.4f);
    fill(scale, 0.5f, 1.5f);
    fill(shift, 0, 0);
    fill(dsrc, 0, 0);
    args = {
        {DNNL_ARG_SRC, src},       {DNNL_ARG_DIFF_DST, ddst},     {DNNL_ARG_MEAN, mean},
        {DNNL_ARG_VARIANCE, var},  {DNNL_ARG_SCALE, scale},       {DNNL_ARG_SHIFT, shift},
        {DNNL_ARG_DIFF_SRC, dsrc}, {DNNL_ARG_DIFF_SCALE, dscale}, {DNNL_ARG_DIFF_SHIFT, dshift}};
    prim = dnnl::batch_normalization_backward(bwd);
    const double elem = static_cast<double>(x[0] * x[1] * x[2] * x[3]);
    bytes = 3.0 * elem * (type == dt::f32 ? 4 : 2);
    call();  // warm-up: first touch, thread start
  }
  void call() {
    prim.execute(strm, args);
    strm.wait();
  }
};

void run_case(benchmark::State& state, const BenchCase& c, tag layout) {
  OnednnCase one(c, layout);
  double seconds = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    one.call();
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  set_rate_counters(state, one.bytes, seconds);
  state.SetLabel(one.bwd.impl_info_str());
}

// OpenMP's workers must not spin while bnscope's window runs: libgomp's worker spins for about
// 10 ms after a call on the Zen 5, and with it left to spin bnscope's windows of 32x7x7x2048
// channels-last float32 training took 2.0-2.8 ms in some rounds against 0.6-1.0 in others, with
// pauses of up to 100 ms between windows. oneDNN's barriers within a call are its own spins, so
// its calls are not slower for a passive wait (0.84 ms either way, medians of five processes).
// The variable is read when libgomp loads, so it is the caller's to set.
bool openmp_waits_passively() {
  std::string policy = std::getenv("OMP_WAIT_POLICY") ? std::getenv("OMP_WAIT_POLICY") : "";
  for (char& ch : policy) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  const char* spin = std::getenv("GOMP_SPINCOUNT");
  return policy == "passive" || (spin && std::string(spin) == "0");
}

// bnscope's cpu backend and oneDNN on one case in turn in this process (profile/alternation.h),
// so that both meet the same moments of a shared host. ours_ms and onednn_ms: the medians over
// rounds of each window's median call; speedup: the median over rounds of oneDNN's time over
// ours in the same round, with its min and max; ours_ms_r<k> and onednn_ms_r<k>: round k's,
// which scripts/peer_alternate.py reads. Rounds: BNSCOPE_ALT_ROUNDS (default 8).
void run_alternating(benchmark::State& state, const BenchCase& c, tag layout) {
  if (!openmp_waits_passively()) {
    state.SkipWithError(
        "alternate/ cases need OMP_WAIT_POLICY=passive (OpenMP's spinning "
        "workers would take bnscope's CPUs)");
    return;
  }
  BackendCase ours({c.shape, c.nchw, c.training, c.dtype, "cpu", c.global}, "cpu/" + case_name(c),
                   bench_threads());
  if (!ours.agrees) {
    state.SkipWithError("bnscope's outputs disagree with cpu-reference; not timed");
    return;
  }
  OnednnCase theirs(c, layout);
  AlternationOptions options;
  options.rounds = std::max(1, env_int("BNSCOPE_ALT_ROUNDS", 8));
  Alternation alt;
  for (auto _ : state) {
    alt = alternate([&] { ours.call(); }, [&] { theirs.call(); }, options);
    state.SetIterationTime(alt.a_median());
  }
  const TimingStats speedup = timing_stats(alt.ratios());
  state.counters["ours_ms"] = alt.a_median() * 1e3;
  state.counters["onednn_ms"] = alt.b_median() * 1e3;
  state.counters["speedup"] = speedup.median;
  state.counters["speedup_min"] = speedup.min;
  state.counters["speedup_max"] = speedup.max;
  for (std::size_t k = 0; k < alt.a_seconds.size(); ++k) {
    state.counters["ours_ms_r" + std::to_string(k)] = alt.a_seconds[k] * 1e3;
    state.counters["onednn_ms_r" + std::to_string(k)] = alt.b_seconds[k] * 1e3;
  }
  state.SetLabel(theirs.bwd.impl_info_str());
}

template <class Run>
void run_or_skip(benchmark::State& state, const BenchCase& c, tag layout, Run run) {
  try {
    run(state, c, layout);
  } catch (const dnnl::error& e) {
    state.SkipWithError((std::string("oneDNN: ") + e.what()).c_str());
  } catch (const Error& e) {
    state.SkipWithError((std::string("bnscope: ") + e.what()).c_str());
  }
}

void register_all() {
  for (const BenchCase& c : bench_cases()) {
    if (c.dtype == DType::F16) continue;
    const tag layout = c.nchw ? tag::nchw : tag::nhwc;
    register_timed("onednn/" + case_name(c),
                   [c, layout](benchmark::State& st) { run_or_skip(st, c, layout, run_case); });
    if (c.nchw) {
      std::string blocked = "onednn/" + case_name(c);
      blocked.replace(blocked.find("/NCHW/"), 6, "/NCHW16c/");
      register_timed(blocked,
                     [c](benchmark::State& st) { run_or_skip(st, c, tag::nChw16c, run_case); });
    }
  }
  // After every onednn/ case, so that a filter for those alone never builds bnscope's problems.
  for (const BenchCase& c : bench_cases()) {
    if (c.dtype == DType::F16) continue;
    const tag layout = c.nchw ? tag::nchw : tag::nhwc;
    benchmark::RegisterBenchmark(
        ("alternate/" + case_name(c)).c_str(),
        [c, layout](benchmark::State& st) { run_or_skip(st, c, layout, run_alternating); })
        ->Iterations(1)
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
  }
}

}  // namespace
}  // namespace bnscope

int main(int argc, char** argv) {
  return bnscope::bench_main(argc, argv, bnscope::register_all);
}
