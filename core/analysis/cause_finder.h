#pragma once
// When outputs disagree, tests the known traps one by one: re-runs the problem with the suspected
// mistake undone and measures whether the disagreement goes away. A cause is only reported with
// the evidence (error before and after).

#include <string>
#include <string_view>
#include <vector>

#include "analysis/diff.h"
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
};

// The fix for a layout trap: the buffers of the data inputs reinterpreted as the other layout
// (same bytes, dimensions taken from the declared shape) and converted to the declared one.
Tensor reinterpret_other_layout(const Tensor& t, bool declared_channels_last);

// Re-runs problem on candidate_backend once per applicable trap and compares with expected.
// Returns the traps that reduce the worst tolerance ratio at least tenfold (or make it pass),
// best first. Traps whose re-run cannot run are skipped.
std::vector<Cause> find_causes(const Problem& problem, std::string_view candidate_backend,
                               const std::vector<OutputTensor>& expected,
                               const DiffOptions& options);

}  // namespace bnscope
