#pragma once
// When outputs disagree, says why: every cause of the catalog (analysis/causes/catalog.h) is
// tried, fitted where it has a value (the epsilon the reference used, a gradient scale), on a
// subsample of channels first with cheap re-runs of the cpu backend, then confirmed on the whole
// problem. A cause is only reported with its evidence (the error before, from the candidate's
// run already made, and after the fix). When nothing fits, one pattern-only entry describes the
// error instead (which outputs, how many channels, what it correlates with) and lists what was
// tried and ruled out.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/diff.h"
#include "backends/backend.h"
#include "ops/prepared.h"
#include "ops/problem.h"

namespace bnscope {

enum class Confidence { Low, Medium, High };
std::string_view confidence_name(Confidence c);  // "low", "medium", "high"

// One change to the problem, as a catalog row (by code) makes it: the fix that Apply fix, the
// CLI's suggestion line and the report name, and what the finder's re-runs applied.
struct FixStep {
  std::string code;                       // the catalog row that makes the change
  double value = 0;                       // the fitted value (epsilon, factor, k), when it has one
  std::vector<double> per_channel;        // per-channel values (gamma), one per channel
  std::vector<std::int64_t> permutation;  // channel order: output channel c is input channel p[c]
  std::string variant;                    // which of a row's changes ("x", "y_backprop", "bf16")
};

// A catalog cause tried and ruled out, with the best error ratio its fix reached.
struct RuledOut {
  std::string code;
  double best_ratio = 0;  // infinite when its re-run could not run
};

struct Cause {
  // A catalog code ("epsilon-mismatch", "reserve-convention", ...), two joined by '+' when two
  // causes together explain the difference, or "unexplained" for the pattern-only entry.
  std::string code;
  std::string title;        // one line for the user
  std::string explanation;  // the evidence: what was fitted and re-run
  double before = 0;        // worst tolerance ratio (|a-b| / (atol + rtol*|b|)); <= 1 passes
  double after = 0;
  double max_abs_before = 0;
  double max_abs_after = 0;
  bool resolves = false;  // the re-run passes every tolerance
  std::string candidate;  // the backend whose disagreement it explains
  Confidence confidence = Confidence::Medium;
  std::string fitted_name;  // "epsilon", "k", "factor"; empty when nothing is fitted
  double fitted = 0;
  std::string suggestion;  // the change that fixes it, in words; for a pattern, what to check next
  std::vector<FixStep> fix;  // empty: no change to the problem fixes it
  // fix makes only the problem's part of a pair: the other cause is the reference's own doing
  // (half accumulation), which no change here makes.
  bool partial_fix = false;
  std::vector<std::int64_t> channels;  // the channels it concerns (localized causes)
  bool in_kernel =
      false;  // the candidate's kernel makes this mistake: fix the kernel, not the problem
  bool benign = false;  // an expected difference (summation order) within the dtype's tolerance
  bool pattern_only = false;        // nothing fits: title describes the error's pattern
  std::vector<RuledOut> ruled_out;  // pattern-only: every cause tried, with its best ratio
};

// A layout trap's buffer reinterpreted as the other layout and converted to the declared one (the
// fix for an op with one layout only; the others declare the other layout instead).
Tensor reinterpret_other_layout(const Tensor& t, bool declared_channels_last);

// Compares candidate (the run already made of problem on candidate.backend) with expected and,
// when they disagree, searches the cause catalog; the candidate itself is not run again. Returns
// the causes that make the comparison pass or reduce its worst tolerance ratio at least tenfold,
// best first; when none does, one pattern-only entry. Empty when the candidate agrees.
// before: the candidate's comparison with expected at these options, with its channel table,
// when the caller has made it (the pipeline has); otherwise it is made here.
// prepared: the problem as the caller prepared it, if it did: re-runs of the whole problem take
// its conversions of the inputs they leave unchanged instead of converting them again.
std::vector<Cause> find_causes(const Problem& problem, const Result& candidate,
                               const std::vector<OutputTensor>& expected,
                               const DiffOptions& options, const RunContext& ctx = {},
                               const Comparison* before = nullptr,
                               const Prepared* prepared = nullptr);

// The problem with a cause's fix applied (every step, in order); nullopt and *why when the cause
// has no fix or one of its steps does not apply to this problem.
std::optional<Problem> apply_cause_fix(const Problem& problem, const Cause& cause,
                                       std::string* why = nullptr);

}  // namespace bnscope
