#pragma once
// The one path from a problem to a verdict: run the requested backends on one prepared problem,
// compare every candidate with the reference (a backend or saved outputs), and find the likely
// causes of a disagreement from the runs already made. The CLI's printer, the report writers and
// the app's models read the PipelineResult it returns; none of them runs or compares on its own.

#include <string>
#include <vector>

#include "analysis/cause_finder.h"
#include "analysis/diff.h"
#include "backends/backend.h"
#include "ops/prepared.h"
#include "ops/result.h"

namespace bnscope {

inline constexpr const char* kReferenceBackend = "cpu-reference";

struct PipelineRequest {
  // Backends to run, in this order. Duplicates are run once.
  std::vector<std::string> backends;
  // The reference backend. Empty: cpu-reference when listed, else the first backend. Named but
  // not listed: run first as well. Ignored when `against` is set.
  std::string reference;
  // Saved outputs to compare with instead of a backend (a directory of OUTPUT.npy, an .npz, or
  // one OUTPUT.npy); every backend is then a candidate. A directory or .npz lacking some of the
  // op's defined outputs fails naming them, unless allow_missing.
  std::string against;
  bool allow_missing = false;
  DiffOptions diff;
  bool find_causes = true;  // search the cause catalog for each candidate that disagrees
  // Runs of this same prepared problem made before (the app's run, before a comparison was
  // asked for; the selftest's runs): a backend found here is taken as it ran, sharing its
  // outputs, not run again, and need not be in the registry.
  std::vector<Result> made;
  // The outputs an earlier run read from this same `against` (its PipelineResult::expected and
  // against_stamp): taken instead of reading the file again while its stamp is unchanged, so a
  // toggle compared with saved outputs neither reads nor holds them twice.
  std::vector<OutputTensor> saved;
  std::string saved_stamp;
};

// Two requests ask for the same runs and comparison: every field but `made`, `saved` and
// `saved_stamp`, which only save work.
bool same_request(const PipelineRequest& a, const PipelineRequest& b);

struct PipelineResult {
  std::string reference;               // backend name or the `against` path
  bool reference_is_backend = true;    // false: saved outputs
  std::vector<OutputTensor> expected;  // the reference's outputs
  std::string against_stamp;           // of the saved outputs as read (io/file_stamp.h)
  std::vector<Result> runs;            // one per backend run, reference first when it is one
  // The prepared problem's notes (TF-compat, input health, reserve spaces) followed by what the
  // runs added (non-finite outputs, backend notes), each once.
  std::vector<Note> notes;
  ChannelView view;           // of the data outputs, for per-channel tables and slicing
  bool channels_last = true;  // of the data outputs
  bool has_diff = false;      // false with one backend and no saved outputs
  DiffReport diff;            // one comparison per candidate, in run order
  std::vector<Cause> causes;  // Cause::candidate names the run each was found for
  // Candidates that disagree with no catalog cause (their causes hold one pattern-only entry).
  std::vector<std::string> no_cause_found;

  bool passed() const { return !has_diff || diff.passed(); }
  // The run of a backend; nullptr when it was not run.
  const Result* run(std::string_view backend) const;
  // Candidates' runs only (the reference's excluded), in run order.
  std::vector<const Result*> candidates() const;
};

// The reference a request resolves to: cpu-reference whenever listed, else the first backend;
// the `against` path when set. Throws Error naming the request's problem when there is nothing
// to run.
std::string resolve_reference(const PipelineRequest& request);

// Runs, compares and finds causes. `prepared` must be prepare(problem) (notes attached there);
// the problem is needed for the cause finder's re-runs of trap variants. Throws Error for an
// unknown or unavailable backend, missing saved outputs, or when ctx is cancelled.
// Each backend's run takes an output set from the engine's pool (engine/output_pool.h) when it
// holds one and writes into its buffers where dtype and size match, instead of faulting in fresh
// pages.
PipelineResult run_pipeline(const Problem& problem, const Prepared& prepared,
                            const PipelineRequest& request, const RunContext& ctx = {});
// Same, preparing the problem once itself.
PipelineResult run_pipeline(const Problem& problem, const PipelineRequest& request,
                            const RunContext& ctx = {});

// New tolerances on runs already made: compares again and re-finds causes, running nothing but
// the cause finder's trap variants.
PipelineResult recompare(const Problem& problem, const PipelineResult& previous,
                         const DiffOptions& options, bool find_causes = true,
                         const RunContext& ctx = {});

}  // namespace bnscope
