#pragma once
// Output comparison with Polygraphy's semantics (|a-b| <= atol + rtol*|b|, b the reference) plus
// what Polygraphy lacks: dtype-aware default tolerances, ULP distances, a per-channel table and
// the worst elements with full coordinates. Plain data, so writers and Qt models only read it.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/ulp.h"
#include "ops/catalog.h"
#include "ops/result.h"
#include "tensor/layout.h"

namespace bnscope {

struct Tolerance {
  double atol = 0;
  double rtol = 0;
};

// The two columns of the one tolerance table (tolerance.cpp).
enum class ToleranceSet {
  // TensorFlow's test tolerances, for any two runs: 2e-3 for half, 1e-2 for bfloat16, 1e-3 for
  // float; 1e-7 for double, where both sides accumulate in float64.
  Compare,
  // A GPU kernel against cpu-reference on TensorFlow's own test shapes (the selftest sweep):
  // tighter for float and double, whose shapes there are small, looser for the 16-bit types,
  // whose device kernels round every partial sum they store.
  Selftest,
};
Tolerance default_tolerance(DType t, ToleranceSet set = ToleranceSet::Compare);

struct DiffOptions {
  ToleranceSet defaults = ToleranceSet::Compare;  // where the dtype defaults come from
  std::optional<double> atol;                     // all outputs; replaces the dtype default
  std::optional<double> rtol;
  std::map<std::string, double> output_atol;  // per output name, wins over atol
  std::map<std::string, double> output_rtol;
  bool nan_equal = true;  // NaN on both sides counts as agreement (NaN on one side never does)
  int worst_k = 10;

  Tolerance tolerance_for(const std::string& output, DType t) const;
  bool operator==(const DiffOptions&) const = default;
};

// Histogram of absolute errors: bin 0 holds exact agreement, bins 1.. are decades
// [1e-10, 1e-9) ... [1e2, inf) with everything below 1e-10 in bin 1, the last bin holds NaN.
inline constexpr int kHistogramDecadeLow = -10;
inline constexpr int kHistogramDecadeHigh = 2;
int histogram_bin_count();
std::string histogram_bin_label(int bin);

struct ElementError {
  std::int64_t index = 0;            // flat, row-major
  std::vector<std::int64_t> coords;  // per dimension of the output's shape
  std::int64_t channel = -1;         // -1 when the output has no channel axis
  double reference = 0;
  double candidate = 0;
  double abs_error = 0;
  double rel_error = 0;
  std::uint64_t ulp = 0;
  bool mismatch = false;
};

inline constexpr int kMeanLanes = 8;

struct ChannelError {
  std::int64_t channel = 0;
  std::int64_t count = 0;
  std::int64_t mismatches = 0;
  double max_abs = 0;
  double mean_abs = 0;
  double max_rel = 0;
};

// The one wording of OutputDiff::required_atol: the app's verdict table, the report's diff
// table and the CLI's line all say it so ("passes at atol 0.004").
inline constexpr const char* kRequiredAtolWords = "passes at atol";
inline constexpr const char* kRequiredAtolMeaning = "Smallest atol that would pass at this rtol";

struct OutputDiff {
  std::string name;
  DType dtype = DType::F32;  // the candidate's; ULP distances are counted in it
  Shape shape;
  bool compared = false;  // false: skipped, see note
  std::string note;
  Tolerance tolerance;
  std::int64_t count = 0;
  std::int64_t mismatches = 0;
  std::int64_t nan_mismatches = 0;  // NaN on exactly one side
  std::int64_t nan_both = 0;
  double max_abs = 0;
  std::int64_t max_abs_index = -1;
  // The finite errors' mean. Their sum is taken in kMeanLanes partial sums, partial k holding the
  // elements whose index is k modulo kMeanLanes in element order, then added pairwise: the same
  // bits on every machine and thread count, without one serial chain of additions.
  double mean_abs = 0;
  double max_rel = 0;
  double max_abs_reference = 0;  // largest |b| where neither side is NaN: the output's scale
  std::uint64_t max_ulp = 0;
  // Smallest atol that would pass at this rtol (infinite with NaN mismatches); said as
  // kRequiredAtolWords everywhere.
  double required_atol = 0;
  std::vector<std::int64_t> histogram;  // histogram_bin_count() bins
  std::vector<ChannelError> channels;   // empty when the output has no channel axis
  std::vector<ElementError> worst;      // worst first
  // The element holding max_ulp when the worst list (ranked by |a-b|) lacks it: a small value far
  // off in ULP, the first such element. Looked for whenever worst elements are listed.
  std::optional<ElementError> max_ulp_element;
  bool passed = true;  // skipped outputs pass
  // Largest |a-b| / (atol + rtol*|b|); <= 1 passes. Infinite with NaN mismatches.
  double tolerance_ratio = 0;
};

struct Comparison {
  std::string reference;  // backend name or file
  std::string candidate;
  std::vector<OutputDiff> outputs;
  std::vector<std::string> notes;
  bool passed = true;
  double worst_tolerance_ratio() const;
};

struct DiffReport {
  std::vector<Comparison> comparisons;
  bool passed() const;
};

// mean_abs's sum from its kMeanLanes partial sums.
double pairwise_sum(const double (&partials)[kMeanLanes]);

// Compares one output. view: the channel layout of the data outputs (x-shaped) — outputs with
// view.channels elements are per-channel; others get no channel table.
OutputDiff compare_output(const OutputTensor& reference, const OutputTensor& candidate,
                          const DiffOptions& options, const ChannelView* view = nullptr);

// Element i of a compared output as the worst list shows it.
ElementError element_error(const OutputDiff& d, const Tensor& reference, const Tensor& candidate,
                           std::int64_t i, const ChannelView* view = nullptr);

// Matches outputs by name; outputs the reference lacks are noted, not compared.
Comparison compare_results(const std::string& reference_name,
                           const std::vector<OutputTensor>& reference,
                           const std::string& candidate_name,
                           const std::vector<OutputTensor>& candidate, const DiffOptions& options,
                           const ChannelView* view = nullptr);

// Expected outputs from a file: a directory of <output>.npy, or an .npz whose members are named
// <output> or out_<output> (".npy" suffixes allowed). Only names of op's outputs are taken;
// throws Error naming the path when none is found.
std::vector<OutputTensor> load_expected_outputs(const std::string& path, const OpSpec& op);

}  // namespace bnscope
