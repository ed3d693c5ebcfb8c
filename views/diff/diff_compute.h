#pragma once
// The diff tab's work without Qt: run the reference and the candidates, compare, and when they
// disagree ask the cause finder. Re-comparing with new tolerances reuses the outputs.

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "analysis/cause_finder.h"
#include "analysis/diff.h"
#include "backends/result.h"
#include "ops/problem.h"

namespace bnscope {

struct DiffRequest {
  Problem problem;
  std::string reference = "cpu-reference";  // a backend; unused when reference_file is set
  std::string reference_file;               // expected outputs: .npy, .npz or a directory
  std::vector<std::string> candidates;      // backends compared with the reference
  DiffOptions options;
  bool find_causes = true;
  // Runs of this very problem made already (the app's own run): a candidate or reference backend
  // found here is not run again.
  std::vector<Result> runs;
  std::uint64_t revision = 0;  // the app's count of problem changes, carried through
};

struct DiffOutcome {
  DiffRequest request;
  bool channels_last = true;  // of the data outputs, for slicing
  std::string reference_name;
  std::vector<OutputTensor> reference;
  std::vector<Result> candidates;  // same order as report.comparisons
  DiffReport report;
  std::vector<Cause> causes;
  std::vector<std::string> cause_for;  // the candidate each cause was found for
  std::string error;                   // set when nothing could be compared
  bool cancelled = false;
  bool ok() const { return error.empty() && !cancelled; }
};

// Never throws: failures land in DiffOutcome::error.
std::shared_ptr<const DiffOutcome> compute_diff(const DiffRequest& request,
                                                const std::atomic<bool>* cancel = nullptr);
// Same outputs, new options: compares again and re-asks the cause finder.
std::shared_ptr<const DiffOutcome> recompare(const DiffOutcome& previous,
                                             const DiffOptions& options,
                                             const std::atomic<bool>* cancel = nullptr);

// |candidate - reference| per element as float64 (NaN where exactly one side is NaN, 0 where
// both are); an empty tensor when the shapes differ.
Tensor error_tensor(const OutputTensor& reference, const OutputTensor& candidate);

// Where an element of an output sits in the heatmap's terms (batch, channel, folded spatial
// row, column), consistent with tensor_dims() and slice_tensor().
struct ElementPlace {
  std::int64_t n = 0, c = 0, h = 0, w = 0;
};
ElementPlace element_place(const Shape& shape, const std::vector<std::int64_t>& coords,
                           bool channels_last);

}  // namespace bnscope
