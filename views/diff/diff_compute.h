#pragma once
// The Diff tab's side of the one core pipeline (analysis/pipeline.h), without Qt: the tab's
// settings as a pipeline request that also carries the app's own backend (so one run per change
// serves the Channels view and the Diff tab alike), the pipeline's result as the tab reads it,
// and the element-level helpers its heatmap needs.

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/pipeline.h"
#include "heatmap_slice.h"
#include "ops/problem.h"

namespace bnscope {

// What the Diff tab asks for.
struct DiffRequest {
  std::string reference = kReferenceBackend;  // a backend; unused when reference_file is set
  std::string reference_file;                 // expected outputs: .npy, .npz or a directory
  std::vector<std::string> candidates;        // backends compared with the reference
  DiffOptions options;
  bool find_causes = true;
  bool operator==(const DiffRequest& o) const;
};

// The pipeline request that runs `backend` (the app's own run) and, with a diff, the diff's
// reference and candidates, each backend once.
PipelineRequest pipeline_request(const std::string& backend, const DiffRequest* diff);

// One comparison as the Diff tab shows it. The pipeline's result is shared with the run that
// made it, never copied.
struct DiffOutcome {
  DiffRequest request;
  Problem problem;
  std::uint64_t revision = 0;  // the app's count of problem changes this belongs to
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

// The request checked before anything runs; a one-line reason when it cannot be met.
std::optional<std::string> diff_request_problem(const DiffRequest& request);

// Runs the pipeline for the request alone (the export of a problem nobody compared yet). Never
// throws: failures land in DiffOutcome::error.
std::shared_ptr<const DiffOutcome> compute_diff(const Problem& problem, const DiffRequest& request,
                                                const std::atomic<bool>* cancel = nullptr);
// Same runs, new options: the pipeline compares again and re-asks the cause finder.
std::shared_ptr<const DiffOutcome> recompare(const DiffOutcome& previous,
                                             const DiffOptions& options,
                                             const std::atomic<bool>* cancel = nullptr);

// |candidate - reference| per element as float64 (NaN where exactly one side is NaN, 0 where
// both are); an empty tensor when the shapes differ.
Tensor error_tensor(const OutputTensor& reference, const OutputTensor& candidate);

// |candidate - reference| of one 2-D slice of the two outputs (slice_tensor's terms), by the
// same rule as error_tensor: the heatmap reads the error of what it shows, never of the whole
// tensor. Empty when the shapes differ.
Slice2D error_slice(const OutputTensor& reference, const OutputTensor& candidate,
                    bool channels_last, SliceMode mode, std::int64_t a, std::int64_t b);

// Where an element of an output sits in the heatmap's terms (batch, channel, folded spatial
// row, column), consistent with tensor_dims() and slice_tensor().
struct ElementPlace {
  std::int64_t n = 0, c = 0, h = 0, w = 0;
};
ElementPlace element_place(const Shape& shape, const std::vector<std::int64_t>& coords,
                           bool channels_last);

}  // namespace bnscope
