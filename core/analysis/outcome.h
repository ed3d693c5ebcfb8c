#pragma once
// One run of the problem a person is looking at, as the app shows it: its backend's run with
// per-channel statistics and, when a comparison is asked for, the same pipeline run answering
// it (each backend once per change). Plain data, immutable once made; the app's controller runs
// it in the background and its views read it, and tests drive it without a window.

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "analysis/channel_stats.h"
#include "analysis/pipeline.h"
#include "ops/prepared.h"
#include "tensor/error.h"

namespace bnscope {

// One comparison as it was asked for (`request`: its backends are the candidates) and answered.
// The pipeline's result is shared with the run that made it, never copied.
struct DiffOutcome {
  PipelineRequest request;
  Problem problem;
  std::uint64_t revision = 0;  // the caller's count of problem changes this belongs to
  std::shared_ptr<const PipelineResult> result;  // null when nothing could be compared
  std::string error;                             // why nothing could be compared
  bool cancelled = false;
  bool ok() const { return result && error.empty() && !cancelled; }

  // Shorthands for the views; empty without a result.
  const DiffReport& report() const;
  const std::vector<Cause>& causes() const;
  bool channels_last() const { return result ? result->channels_last : true; }
  // The reference's outputs and a candidate's run.
  const OutputTensor* expected(const std::string& output) const;
  const OutputTensor* candidate(const std::string& backend, const std::string& output) const;
};

// Everything one run produced.
struct RunOutcome {
  Problem problem;
  std::uint64_t revision = 0;  // the caller's count of problem changes this run is of
  std::string backend;
  std::optional<Prepared> prepared;  // empty when validation failed
  // The one pipeline run: the backend and, when a comparison was asked for, its reference and
  // candidates, compared and explained. Null when validation or the run failed.
  std::shared_ptr<const PipelineResult> pipeline;
  const Result* result = nullptr;  // the backend's run inside pipeline
  // The comparison this run also answered; as a DiffOutcome when it was made.
  std::optional<PipelineRequest> comparison;
  std::shared_ptr<const DiffOutcome> diff;
  ChannelStats stats;
  std::string error;  // the engine's message when something failed
  bool cancelled = false;
  // The last good results kept when a later run was cancelled: of an earlier problem or backend.
  bool stale = false;
  // The cancelled run only asked the same problem again for a comparison: the results are
  // current, the comparison was not made.
  bool comparison_cancelled = false;
  bool ok() const { return result != nullptr; }
};

// Why a comparison cannot be asked for (no candidate, no reference), in one line; nullopt when
// it can.
std::optional<std::string> comparison_problem(const PipelineRequest& comparison);

// The request that runs `backend` and, with a comparison, the comparison's reference and
// candidates, each backend once.
PipelineRequest with_backend(const std::string& backend, const PipelineRequest* comparison);

// Validation, the pipeline, channel statistics. A comparison that cannot be made (a missing
// file, a backend that cannot run here) fails alone, in diff->error, and the backend's own run
// still stands. Never throws; errors are worded with `words`. previous: an earlier outcome whose
// statistics of the same input buffers are reused rather than read again, and whose run of the
// same revision and backend is taken as made when only a comparison is added. The runs write
// into output sets the engine's pool holds (engine/output_pool.h).
std::shared_ptr<const RunOutcome> compute_outcome(
    const Problem& problem, const std::string& backend, const RunContext& ctx,
    std::uint64_t revision = 0, const PipelineRequest* comparison = nullptr,
    const RunOutcome* previous = nullptr, const OptionWords& words = neutral_option_words());

// What compute_outcome can still take from `o` as `previous` for a problem that keeps only the
// buffers `kept` (a problem replaced whole; Open Recent keeps the buffers it would read again):
// the readings of those buffers (input summaries and scans, and the prepared problem when every
// large tensor it holds is one of them), no runs, no comparison, no problem. Holds none of o's
// outputs or other large inputs, so the problem it was of is not kept beside the next.
std::shared_ptr<const RunOutcome> readings_of(const RunOutcome& o, const std::vector<Tensor>& kept);

// The comparison alone (a report of a problem nobody compared yet). Never throws: failures land
// in DiffOutcome::error.
std::shared_ptr<const DiffOutcome> compute_diff(const Problem& problem,
                                                const PipelineRequest& comparison,
                                                const std::atomic<bool>* cancel = nullptr,
                                                const OptionWords& words = neutral_option_words());
// Same runs, new options: compares again and re-asks the cause finder.
std::shared_ptr<const DiffOutcome> recompare(const DiffOutcome& previous,
                                             const DiffOptions& options,
                                             const std::atomic<bool>* cancel = nullptr,
                                             const OptionWords& words = neutral_option_words());

}  // namespace bnscope
