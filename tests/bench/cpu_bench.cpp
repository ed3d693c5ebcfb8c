// Batch-norm grad throughput of the CPU backends on the shapes of bench_cases.h.
//
// bytes_per_second counts the minimum traffic (read x, read dy, write dx: 12 B/element f32,
// 6 B/element bf16), whatever the implementation really moves; frac_copy divides it by a
// STREAM-style non-temporal copy measured in this process with the same thread count.
// The backend is called directly with a reused Result, so neither output allocation nor the
// engine's NaN count over the outputs is timed. Each case is first checked against
// cpu-reference with the default tolerances and is reported as an error instead of a time when
// it disagrees.
//
//   bnscope_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
// Threads: BNSCOPE_BENCH_THREADS (default 2). Copy probe size: BNSCOPE_BENCH_COPY_MIB (1024).

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analysis/diff.h"
#include "backends/backend.h"
#include "bench_cases.h"
#include "bench_util.h"
#include "engine/engine.h"
#include "engine/outputs.h"
#include "ops/prepared.h"

namespace bnscope {
namespace {

// Fast deterministic fill: a 64-bit LCG mapped to [lo, hi).
Tensor filled(DType dtype, const Shape& shape, std::uint64_t seed, double lo, double hi) {
  Tensor f32(DType::F32, shape);
  float* d = f32.data<float>();
  std::uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
  for (std::int64_t i = 0; i < f32.numel(); ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    d[i] = static_cast<float>(lo + (hi - lo) * static_cast<double>(s >> 40) / 16777216.0);
  }
  return dtype == DType::F32 ? f32 : f32.to(dtype);
}

struct Config {
  Shape nhwc;
  bool nchw;
  bool training;
  DType dtype;
  std::string backend;
  bool global = false;
};

Problem make_problem(const Config& cfg) {
  Problem pb;
  if (cfg.global) {
    const std::int64_t C = cfg.nhwc.back();
    pb.op = "BatchNormWithGlobalNormalizationGrad";
    pb.dtype = cfg.dtype;
    pb.set_attr("variance_epsilon", "0.001");
    pb.set_attr("scale_after_normalization", "true");
    pb.inputs["t"] = filled(cfg.dtype, cfg.nhwc, 1, -1.0, 3.0);
    pb.inputs["backprop"] = filled(cfg.dtype, cfg.nhwc, 2, -1.0, 1.0);
    pb.inputs["m"] = filled(cfg.dtype, {C}, 4, 0.9, 1.1);
    pb.inputs["v"] = filled(cfg.dtype, {C}, 5, 1.2, 1.4);
    pb.inputs["gamma"] = filled(cfg.dtype, {C}, 3, 0.5, 1.5);
    return pb;
  }
  pb.op = "FusedBatchNormGradV3";
  pb.dtype = cfg.dtype;
  pb.set_attr("data_format", cfg.nchw ? "NCHW" : "NHWC");
  pb.set_attr("is_training", cfg.training ? "true" : "false");
  Shape shape = cfg.nhwc;
  const std::int64_t C = shape.back();
  if (cfg.nchw) shape = {shape[0], C, shape[1], shape[2]};
  pb.inputs["x"] = filled(cfg.dtype, shape, 1, -1.0, 3.0);
  pb.inputs["y_backprop"] = filled(cfg.dtype, shape, 2, -1.0, 1.0);
  pb.inputs["scale"] = filled(DType::F32, {C}, 3, 0.5, 1.5);
  pb.inputs["reserve_space_1"] = filled(DType::F32, {C}, 4, 0.9, 1.1);
  pb.inputs["reserve_space_2"] = filled(DType::F32, {C}, 5, 1.2, 1.4);
  return pb;
}

// A case whose outputs disagree with cpu-reference is not timed. Checked once per case (Google
// Benchmark calls the body once per repetition), on the output of the warm-up run.
bool agrees_with_reference(const std::string& name, const Prepared& p, const Result& got) {
  static std::map<std::string, bool> checked;
  if (auto it = checked.find(name); it != checked.end()) return it->second;
  Result ref;
  allocate_outputs(p, ref);
  backend_or_throw("cpu-reference").run(p, ref, RunContext{});
  const bool ok =
      compare_results("cpu-reference", ref.outputs, "cpu", got.outputs, {}, &p.view).passed;
  return checked[name] = ok;
}

// wide_first > 0: one run on that many threads before the timed ones, as when the app or a
// check ran the backend on every CPU first (pool/ cases below).
void run_grad(benchmark::State& state, const Config& cfg, const std::string& name,
              int wide_first = 0) {
  Backend& backend = backend_or_throw(cfg.backend);
  const Prepared p = prepare(make_problem(cfg));
  RunContext ctx;
  Result result;
  allocate_outputs(p, result);
  if (wide_first > 0) {
    ctx.threads = wide_first;
    backend.run(p, result, ctx);
  }
  ctx.threads = bench_threads();
  backend.run(p, result, ctx);  // warm-up: first touch of the outputs, pool start
  if (cfg.backend != "cpu-reference" && !agrees_with_reference(name, p, result)) {
    state.SkipWithError("outputs disagree with cpu-reference; not timed");
    return;
  }
  double seconds = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    backend.run(p, result, ctx);
    benchmark::DoNotOptimize(result.outputs[0].tensor.raw());
    benchmark::ClobberMemory();
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  const double bytes = 3.0 * static_cast<double>(result.outputs[0].tensor.nbytes());
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes) * state.iterations());
  set_rate_counters(state, bytes, seconds);
  state.counters["threads"] = ctx.threads;
}

void register_all() {
  for (const char* backend : {"cpu", "cpu-reference"})
    for (const BenchCase& bc : bench_cases()) {
      // cpu-reference is float64 loops: only the two smallest ResNet tensors, f32.
      if (std::string(backend) == "cpu-reference" &&
          (bc.shape[1] > 14 || bc.shape[3] < 64 || bc.dtype != DType::F32))
        continue;
      const Config cfg{bc.shape, bc.nchw, bc.training, bc.dtype, backend, bc.global};
      const std::string name = std::string(backend) + "/" + case_name(bc);
      register_timed(name, [cfg, name](benchmark::State& st) { run_grad(st, cfg, name); });
    }
  // The timed threads after one run on four times as many: as fast as cpu/ of the same case
  // when the backend's pool wakes only the workers a run needs. Last, so that a pool grown
  // here cannot slow the cases above.
  const Config cfg{{32, 7, 7, 2048}, false, true, DType::BF16, "cpu"};
  const std::string name = "pool/after_wide_run/32x7x7x2048/NHWC/train/bfloat16";
  register_timed(name, [cfg, name](benchmark::State& st) {
    run_grad(st, cfg, "cpu/32x7x7x2048/NHWC/train/bfloat16", 4 * bench_threads());
  });
}

}  // namespace
}  // namespace bnscope

int main(int argc, char** argv) {
  return bnscope::bench_main(argc, argv, bnscope::register_all);
}
