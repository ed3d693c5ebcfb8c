#pragma once
// The cause search's working state: the problem seen whole and on a subsample of channels, the
// candidate's and the reference's outputs on both, and how a trial (one or two catalog fixes) is
// measured: by a re-run of the cpu backend with the fix applied, or, for fixes that only rescale
// or reorder outputs, by mapping the candidate's own outputs (and, for a cause no re-run can
// make, by recomputing them from the scope's problem).

#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "analysis/cause_finder.h"
#include "ops/catalog.h"
#include "tensor/layout.h"

namespace bnscope::causes {

// The problem on some channels (all of them for the whole problem).
struct Scope {
  Problem problem;
  std::vector<std::int64_t> channels;  // empty: every channel, in order
  std::vector<OutputTensor> expected;
  std::vector<OutputTensor> candidate;
  ChannelView view;  // of the scope's data tensors
  // The whole problem as the pipeline prepared it (nullptr on a subsample or when not given):
  // re-runs of the whole problem take its conversions of the buffers they leave unchanged.
  const Prepared* prepared = nullptr;
  bool whole() const { return channels.empty(); }
};

// How far a set of outputs is from the reference: the worst tolerance ratio (the evidence) and
// the summed relative squared error of the compared outputs (what fits minimize: it averages
// rounding noise over every element where the worst ratio does not).
struct Score {
  double ratio = INFINITY;
  double sq = INFINITY;
  double max_abs = INFINITY;
  bool passed = false;
  bool ran = false;  // false: the re-run could not run here
};

using OutputMap = std::function<void(std::vector<OutputTensor>&, const Scope&)>;

struct Trial {
  std::string code;            // the catalog row; two joined by '+'
  std::vector<FixStep> steps;  // applied to the problem before a re-run
  std::string title;           // what the reference did, one line
  std::string evidence;        // what was fitted
  std::string suggestion;      // the change that fixes it, in words
  std::string in_kernel;       // the same mistake made by a candidate's kernel, one line
  std::string fitted_name;
  double fitted = 0;
  bool whole_only = false;   // cannot run on a channel subsample (layout, channel order)
  OutputMap after_run;       // maps a re-run's outputs into the reference's form (layout)
  OutputMap instead_of_run;  // measures without a run: maps the candidate's outputs (scale,
                             // order) or recomputes them (half accumulation)
  bool recomputes = false;   // instead_of_run recomputes every output from the scope's problem:
                             // the problem changes of the steps before it are made first
};

// A trial of one catalog row whose fix is one step (the step takes the row's code).
Trial make_trial(std::string code, std::string title, std::string evidence, std::string suggestion,
                 FixStep step = {});

// The trial's mistake as a candidate's kernel makes it ("the kernel indexes NCHW buffers as NHWC").
std::string kernel_title(const Trial& t);

// Both trials' fixes together: a's steps then b's.
Trial combine(const Trial& a, const Trial& b);

class Search {
 public:
  Search(const Problem& problem, const OpSpec& op, const Result& candidate,
         const std::vector<OutputTensor>& expected, const DiffOptions& options,
         const Comparison& before, const RunContext& ctx, const Prepared* prepared = nullptr);

  // The search the other way round, for a candidate whose disagreement the cpu backend does not
  // share: the reference's outputs stand in for the candidate's and the candidate's are what a
  // trial must reproduce, so a cpu re-run with a mistake made that matches them names the
  // mistake the candidate's kernel makes.
  Search mirrored() const;
  // Non-empty in a mirrored search: the backend whose kernel the trials explain.
  const std::string& kernel_of() const { return kernel_of_; }

  const OpSpec& op() const { return op_; }
  const Problem& problem() const { return whole_.problem; }
  const Scope& whole() const { return whole_; }
  const Scope& sub() const { return sub_; }
  const Scope& scope_for(const Trial& t) const { return t.whole_only ? whole_ : sub_; }
  bool channels_last() const { return channels_last_; }
  const DiffOptions& options() const { return options_; }
  const Comparison& before() const { return before_; }
  const std::string& candidate_backend() const { return candidate_backend_; }
  const RunContext& ctx() const { return ctx_; }
  DType t() const { return t_; }

  // The trial's outputs on a scope (nullopt when its re-run cannot run here).
  std::optional<std::vector<OutputTensor>> outputs(const Trial& t, const Scope& s) const;
  Score score(const Trial& t, const Scope& s) const;
  Score score(const Trial& t) const { return score(t, scope_for(t)); }
  Score score_outputs(const std::vector<OutputTensor>& outs, const Scope& s) const;
  // The trial on every channel, as confirming a cause needs it: on the whole problem where that
  // is small, else a block of channels at a time (every channel is its own problem in batch
  // norm), so a real layer's confirmation holds one block's re-run beside the problem, not a
  // second whole set of outputs. A whole-only trial is scored whole.
  Score score_on_all_channels(const Trial& t) const;
  // The same, `per_block` channels at a time: the verdict, worst ratio and largest |a-b| are
  // those of every block together, the squared error summed over them.
  Score score_in_blocks(const Trial& t, std::int64_t per_block) const;
  // Above this many bytes of data the confirmation runs in blocks of about kBlockBytes.
  static constexpr std::size_t kWholeBytes = std::size_t{16} << 20;
  static constexpr std::size_t kBlockBytes = std::size_t{4} << 20;
  // The problem on `channels` (in order), as the subsample is; without the candidate's outputs
  // (left empty) where the caller only re-runs.
  Scope on_channels(const std::vector<std::int64_t>& channels, bool with_candidate = true) const;
  // The identity trial's score on the subsample: the cpu backend on the problem as it is.
  const Score& cpu_as_is() const;
  const Score& candidate_on_sub() const { return candidate_sub_score_; }

 private:
  const OpSpec& op_;
  DiffOptions options_;
  Comparison before_;
  RunContext ctx_;
  std::string candidate_backend_;
  std::string rerun_backend_;
  std::string kernel_of_;
  bool channels_last_ = true;
  DType t_ = DType::F32;
  Scope whole_;
  Scope sub_;
  Score candidate_sub_score_;
  mutable std::optional<Score> cpu_as_is_;
};

// The detectors, one per family of causes. Each proposes trials on top of `base` (an empty
// trial, or a cause already found when two are looked for together), fitting what it fits.
using Detector = std::vector<Trial> (*)(const Search&, const Trial& base);
std::vector<Trial> detect_convention(const Search&, const Trial&);
std::vector<Trial> detect_epsilon_clamped(const Search&, const Trial&);
std::vector<Trial> detect_epsilon(const Search&, const Trial&);
std::vector<Trial> detect_bessel(const Search&, const Trial&);
std::vector<Trial> detect_statistics(const Search&, const Trial&);
std::vector<Trial> detect_avg_factor(const Search&, const Trial&);
std::vector<Trial> detect_mode(const Search&, const Trial&);
std::vector<Trial> detect_layout(const Search&, const Trial&);
std::vector<Trial> detect_half_overflow(const Search&, const Trial&);
std::vector<Trial> detect_half_computation(const Search&, const Trial&);
std::vector<Trial> detect_precision(const Search&, const Trial&);
std::vector<Trial> detect_half_accumulation(const Search&, const Trial&);
std::vector<Trial> detect_scale_input(const Search&, const Trial&);
std::vector<Trial> detect_gradient_scale(const Search&, const Trial&);
std::vector<Trial> detect_permutation(const Search&, const Trial&);

// Causes read from the comparison alone (plus at most one re-run), not fixed by a change.
std::optional<Cause> detect_reduction_order(const Search&);
std::optional<Cause> detect_few_channels(const Search&);

std::vector<Cause> search_causes(const Search& s);

// When nothing fits: the error's pattern, what was tried and what to check next.
Cause describe_pattern(const Search& s, std::vector<RuledOut> ruled_out);

}  // namespace bnscope::causes
