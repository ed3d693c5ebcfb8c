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
#include <string>
#include <vector>

#include "bench_cases.h"
#include "bench_problem.h"
#include "bench_util.h"

namespace bnscope {
namespace {

// wide_first > 0: one run on that many threads before the timed ones, as when the app or a
// check ran the backend on every CPU first (pool/ cases below).
void run_grad(benchmark::State& state, const Config& cfg, const std::string& name,
              int wide_first = 0) {
  BackendCase one(cfg, name, bench_threads(), wide_first);
  if (!one.agrees) {
    state.SkipWithError("outputs disagree with cpu-reference; not timed");
    return;
  }
  double seconds = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    one.call();
    benchmark::DoNotOptimize(one.result.outputs[0].tensor.raw());
    benchmark::ClobberMemory();
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  const double bytes = 3.0 * static_cast<double>(one.result.outputs[0].tensor.nbytes());
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes) * state.iterations());
  set_rate_counters(state, bytes, seconds);
  state.counters["threads"] = one.ctx.threads;
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
