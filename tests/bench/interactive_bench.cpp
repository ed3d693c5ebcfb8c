// The GUI's interactive path without a window: the sample problem is loaded once, then every
// iteration toggles a boolean attr (as a click in the attribute panel does) and re-runs the
// whole engine path (validation, health checks, cpu backend, output counts) through
// run_problem. The goal is < 100 ms per toggle; the counter `ms_per_toggle` reports it.

#include <benchmark/benchmark.h>

#include <chrono>
#include <string>

#include "engine/engine.h"
#include "ops/catalog.h"
#include "ops/problem_io.h"

namespace bnscope {
namespace {

// The first boolean attr the sample's op has (is_training for the fused grads).
std::string toggle_attr(const Problem& p) {
  const OpSpec* op = find_op(p.op);
  if (op)
    for (const AttrSpec& a : op->attrs)
      if (a.type == AttrType::Bool) return std::string(a.name);
  return {};
}

void BM_ToggleAndRerun(benchmark::State& state) {
  Problem problem =
      load_problem(std::string(BNSCOPE_SOURCE_DIR) + "/resources/samples/default.npz");
  const std::string attr = toggle_attr(problem);
  if (attr.empty()) {
    state.SkipWithError("sample op has no boolean attr to toggle");
    return;
  }
  bool value = attr_bool(problem, attr);
  run_problem(problem, "cpu");  // warm-up: pool start, first touch
  double seconds = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    value = !value;
    problem.attrs[attr] = value;
    Result r = run_problem(problem, "cpu");
    benchmark::DoNotOptimize(r);
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  state.counters["ms_per_toggle"] = 1e3 * seconds / static_cast<double>(state.iterations());
  state.SetLabel(problem.op + " toggling " + attr);
}
BENCHMARK(BM_ToggleAndRerun)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace bnscope

BENCHMARK_MAIN();
