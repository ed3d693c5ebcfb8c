#include "analysis/half_sums.h"

#include <algorithm>
#include <cmath>

#include "engine/engine.h"
#include "tensor/error.h"

namespace bnscope {

namespace {

// The backend that reproduces TensorFlow's half arithmetic for this op (simd_global_half.cpp).
constexpr const char* kHalfSumBackend = "cpu";

bool fits_with_room(double v) {
  // Below half of 65504, so rounding the inputs to half cannot carry it over the range.
  return std::fabs(v) <= kHalfMax / 2;
}

// Per-channel elements where one side is infinite and the other fits in half: the side that
// sums in half is the candidate when it is the cpu backend, otherwise the reference (such as
// TensorFlow's own outputs given with --against).
std::int64_t overflowed_sums(const std::vector<OutputTensor>& candidate,
                             bool candidate_sums_in_half, const std::vector<OutputTensor>& expected,
                             std::string& names) {
  std::int64_t n = 0;
  for (const OutputTensor& o : candidate) {
    if (o.name == "dx" || !o.defined) continue;
    const auto ref = std::find_if(expected.begin(), expected.end(),
                                  [&](const OutputTensor& e) { return e.name == o.name; });
    if (ref == expected.end() || ref->tensor.numel() != o.tensor.numel()) continue;
    const Tensor& half_side = candidate_sums_in_half ? o.tensor : ref->tensor;
    const Tensor& exact_side = candidate_sums_in_half ? ref->tensor : o.tensor;
    std::int64_t here = 0;
    for (std::int64_t i = 0; i < o.tensor.numel(); ++i)
      here += std::isinf(half_side.get(i)) && fits_with_room(exact_side.get(i));
    if (here) names += (names.empty() ? "" : ", ") + o.name;
    n += here;
  }
  return n;
}

double ratio_of(const std::vector<OutputTensor>& expected, const Result& r,
                const DiffOptions& options) {
  DiffOptions quick = options;
  quick.worst_k = 0;
  return compare_results("expected", expected, r.backend, r.outputs, quick).worst_tolerance_ratio();
}

}  // namespace

bool sums_in_half(const Problem& problem, std::string_view backend) {
  const OpSpec* op = find_op(problem.op);
  return op && op->family == OpFamily::GlobalNorm && op->is_grad && problem.dtype == DType::F16 &&
         backend == kHalfSumBackend;
}

void add_half_sum_overflow(const Problem& problem, const Result& candidate,
                           const std::vector<OutputTensor>& expected, const DiffOptions& options,
                           std::vector<Cause>& causes) {
  const OpSpec* op = find_op(problem.op);
  if (!op || op->family != OpFamily::GlobalNorm || !op->is_grad) return;
  if (candidate.outputs.empty() || candidate.outputs.front().tensor.dtype() != DType::F16) return;
  std::string names;
  const std::int64_t n =
      overflowed_sums(candidate.outputs, candidate.backend == kHalfSumBackend, expected, names);
  if (n == 0) return;

  Cause c;
  c.code = "half-sum-overflow";
  c.title = "the half-precision sums overflowed: TensorFlow's CPU kernel sums the " +
            std::to_string(n) + " value(s) of " + names +
            " over the rows in half, and a running sum passed 65504 although the exact result "
            "fits in half";
  c.explanation = "re-ran in float32";
  c.before = ratio_of(expected, candidate, options);
  Problem wide = problem;
  wide.dtype = DType::F32;
  for (auto& [name, t] : wide.inputs)
    if (t.dtype() == DType::F16) t = t.to(DType::F32);
  try {
    const Result r = run_problem(wide, candidate.backend);
    DiffOptions quick = options;
    quick.worst_k = 0;
    const Comparison after = compare_results("expected", expected, r.backend, r.outputs, quick);
    c.after = after.worst_tolerance_ratio();
    c.resolves = after.passed;
  } catch (const Error&) {
    c.after = c.before;  // no float32 run here: the overflow itself is the evidence
  }
  causes.erase(std::remove_if(causes.begin(), causes.end(),
                              [](const Cause& k) { return k.code == "half-overflow"; }),
               causes.end());
  causes.insert(causes.begin(), std::move(c));
}

}  // namespace bnscope
