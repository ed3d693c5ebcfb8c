#pragma once
// When outputs disagree, tests the known traps one by one: re-runs the problem with the suspected
// mistake undone and measures whether the disagreement goes away. A cause is only reported with
// the evidence (error before, from the candidate's run already made, and after the re-run).

#include <string>
#include <string_view>
#include <vector>

#include "analysis/diff.h"
#include "backends/backend.h"
#include "ops/problem.h"

namespace bnscope {

struct Cause {
  // "reserve-convention", "layout-swapped", "epsilon-clamped", "half-overflow",
  // "half-sum-overflow"
  std::string code;
  std::string title;        // one line for the user
  std::string explanation;  // what was changed for the re-run
  double before = 0;        // worst tolerance ratio (|a-b| / (atol + rtol*|b|)); <= 1 passes
  double after = 0;
  double max_abs_before = 0;
  double max_abs_after = 0;
  bool resolves = false;  // the re-run passes every tolerance
  std::string candidate;  // the backend whose disagreement it explains
};

// The fix for a layout trap: the buffers of the data inputs reinterpreted as the other layout
// (same bytes, dimensions taken from the declared shape) and converted to the declared one.
Tensor reinterpret_other_layout(const Tensor& t, bool declared_channels_last);

// Compares candidate (the run already made of problem on candidate.backend) with expected, then
// re-runs the problem on that backend once per applicable trap; the candidate itself is not run
// again. Returns the traps that reduce the worst tolerance ratio at least tenfold (or make it
// pass), best first. Traps whose re-run cannot run are skipped.
std::vector<Cause> find_causes(const Problem& problem, const Result& candidate,
                               const std::vector<OutputTensor>& expected,
                               const DiffOptions& options, const RunContext& ctx = {});

}  // namespace bnscope
