#include "analysis/causes/catalog.h"

#include "analysis/causes/fixes.h"
#include "tensor/error.h"

namespace bnscope {

namespace causes {

namespace {

const CauseSpec kCatalog[] = {
    // First the two that re-run in float32: every other row's re-run computes in the problem's
    // half type and could not reach a float32 reference. An overflow is the more specific.
    {"half-overflow", "half-precision overflow", "values exceed half precision's range (65504)",
     "re-run in float32 when inputs, reference or outputs pass 65504",
     "high when the re-run passes", "compute in float32", detect_half_overflow, fix_widen},
    {"half-computation", "computed in half precision",
     "this problem computes in float16/bfloat16 where the reference computed in float32 (its "
     "inputs converted to half by choice, or saved float32 outputs)",
     "re-run in float32 from the inputs as given, when the inputs or the saved data gradient are "
     "wider than the problem's type",
     "high when the re-run passes", "compute in float32", detect_half_computation, fix_widen},
    {"reserve-convention", "reserve-space convention",
     "reserve_space_2 holds 1/sqrt(variance + epsilon) (cuDNN) where the variance was read, or "
     "the reverse; from a training forward, it was written in the other convention",
     "re-run with the other convention (grads and training forwards)",
     "high when the re-run passes", "declare the other reserve convention (variance / inv_std)",
     detect_convention, fix_convention},
    {"reserve-inverse-variance", "reserve space holds 1/(var + eps)",
     "reserve_space_2 holds the inverse variance 1/(variance + epsilon)",
     "re-run with reserve_space_2 read as 1/(variance + epsilon)", "high when the re-run passes",
     "convert reserve_space_2 from 1/(variance + epsilon)", detect_convention,
     fix_inverse_variance},
    {"layout-swapped", "layout mix-up", "NCHW bytes read as NHWC, or the reverse",
     "re-run with the data buffers reinterpreted in the other layout (when the data output is "
     "uncorrelated with the reference, or the problem is small)",
     "high when the re-run passes", "reinterpret x and the gradient in the other layout",
     detect_layout, fix_layout},
    {"epsilon-clamped", "epsilon below cuDNN's minimum",
     "the reference clamped epsilon to 1.001e-5 as tf.nn.fused_batch_norm does",
     "re-run with epsilon = 1.001e-5", "high when the re-run passes", "set epsilon to 1.001e-5",
     detect_epsilon_clamped, fix_epsilon_clamped},
    {"epsilon-mismatch", "epsilon mismatch",
     "the reference used another epsilon (Keras 1e-3, TensorFlow's fused ops 1e-4, PyTorch 1e-5)",
     "fitted from the per-channel gradient ratios and a log-scale search of cpu re-runs on a "
     "subsample of channels, confirmed on the whole problem",
     "high when the confirming re-run passes", "set epsilon to the fitted value", detect_epsilon,
     fix_epsilon},
    {"half-sum-overflow", "half-precision sums",
     "TensorFlow's CPU kernel sums in half and a running sum passed 65504",
     "an infinite per-channel output where the reference is finite; re-run in float32",
     "high: the overflow itself is the evidence", "compute in float32", nullptr, fix_widen},
    {"half-accumulation", "half-precision accumulation",
     "the reference accumulated the per-channel sums (sum of dy, sum of dy*(x - mean)) in "
     "float16/bfloat16, a running sum rounded after every add as a naive half kernel does, "
     "where TensorFlow's kernels accumulate half data in float32 (or a candidate's kernel does "
     "so against a float32-accumulating reference)",
     "the outputs recomputed from the problem with the sums kept in the data type, no re-run "
     "(float16 and bfloat16 FusedBatchNormGrad problems only)",
     "high when the recomputed outputs pass", "", detect_half_accumulation, nullptr},
    {"bessel-variance", "biased vs unbiased variance",
     "the reference's variance carries the Bessel factor N/(N-1) (or lacks it): fused and "
     "unfused TensorFlow paths differ here",
     "re-run with the variance multiplied by N/(N-1) and by (N-1)/N",
     "high when the re-run passes (visible only for small N)",
     "multiply the variance by the factor", detect_bessel, fix_bessel},
    {"moving-statistics", "moving statistics used where the batch's were",
     "the reference normalized with the batch's own mean and variance, this problem with other "
     "statistics (moving averages)",
     "re-run with the statistics inputs replaced by the batch moments of x",
     "high when the re-run passes", "use the batch's mean and variance", detect_statistics,
     fix_batch_statistics},
    {"exponential-avg-factor", "running-statistics factor",
     "the reference's forward blended its running mean and variance with another "
     "exponential_avg_factor (1 replaces them with the batch's; Keras' momentum 0.99 is a factor "
     "of 0.01)",
     "the factor fitted from batch_mean against the batch's own mean and the running mean, "
     "re-run with it (training forward ops)",
     "high when the re-run passes", "set exponential_avg_factor to the fitted value",
     detect_avg_factor, fix_avg_factor},
    {"mode-flipped", "training vs inference mode", "the reference ran in the other mode",
     "re-run with is_training flipped", "high when the re-run passes", "flip is_training",
     detect_mode, fix_mode},
    {"scale-missing", "scale (gamma) missing in the reference",
     "a layer without gamma (Keras scale=False) on the reference's side: gamma = 1 there",
     "re-run with scale set to 1", "high when the re-run passes", "set scale to 1",
     detect_scale_input, fix_scale_missing},
    {"scale-ignored", "scale (gamma) missing in this problem",
     "this problem has gamma = 1 (scale=False) where the reference had a real gamma",
     "per-channel gamma fitted from the data gradient's ratio, re-run with it",
     "high when the re-run passes", "set scale to the fitted gamma", detect_scale_input,
     fix_scale_ignored},
    {"offset-irrelevant", "offset (beta)",
     "offset/beta does not enter the gradients: a different beta cannot explain a gradient's "
     "difference",
     "never a cause of a gradient op's difference; said when the search finds nothing",
     "certain (the gradients do not read beta)", "", nullptr, nullptr},
    {"input-precision", "input precision",
     "the reference computed from x or the gradient rounded to float16/bfloat16 (mixed "
     "precision) while this problem has float32",
     "re-run with x, the gradient or both rounded to float16 and bfloat16",
     "high when the re-run passes", "round the named inputs to the named type", detect_precision,
     fix_precision},
    {"gradient-scale", "constant gradient scale",
     "reference = k x candidate with one k across outputs (a mixed-precision loss scale not "
     "removed)",
     "least-squares k from the data gradient, checked on every output", "high when it passes",
     "multiply the upstream gradient by k (or divide the reference by k)", detect_gradient_scale,
     fix_gradient_scale},
    {"channels-permuted", "channels permuted",
     "the reference's per-channel statistics match this problem's in another channel order",
     "nearest match of every channel's per-channel outputs, checked on every output",
     "high when it passes", "reorder the inputs' channels", detect_permutation, fix_permutation},
    {"few-channels", "a few channels only",
     "only some channels differ: NaN/Inf in their inputs, a zero variance, a denormal gamma",
     "the per-channel error table, those channels' inputs read",
     "high with a reason in the inputs, medium without", "", nullptr, nullptr},
    {"reduction-order", "reduction order only",
     "differences of a few ULP, spread evenly, the same on both layouts: the outputs agree up to "
     "summation order",
     "within the dtype's default tolerance, errors on most channels, a cpu re-run in the other "
     "layout within the same tolerance",
     "medium: summation order is what remains once everything else agrees", "", nullptr, nullptr},
    {"unexplained", "no catalog cause fits",
     "the error's pattern, what was tried and ruled out, and what to check next", "", "", "",
     nullptr, nullptr},
};

}  // namespace

std::span<const CauseSpec> cause_catalog() {
  return kCatalog;
}

const CauseSpec* find_cause_spec(std::string_view code) {
  for (const CauseSpec& c : kCatalog)
    if (c.code == code) return &c;
  return nullptr;
}

void apply_steps(Problem& p, const OpSpec& op, const std::vector<FixStep>& steps,
                 const std::vector<std::int64_t>& channels) {
  for (const FixStep& s : steps) {
    const CauseSpec* spec = find_cause_spec(s.code);
    if (!spec || !spec->apply) fail("no change to the problem fixes cause '" + s.code + "'");
    spec->apply(p, op, s, channels);
  }
}

}  // namespace causes

std::string_view confidence_name(Confidence c) {
  switch (c) {
    case Confidence::Low:
      return "low";
    case Confidence::Medium:
      return "medium";
    case Confidence::High:
      return "high";
  }
  return "medium";
}

std::optional<Problem> apply_cause_fix(const Problem& problem, const Cause& cause,
                                       std::string* why) {
  const OpSpec* op = find_op(problem.op);
  if (!op) {
    if (why) *why = "unknown op " + problem.op;
    return std::nullopt;
  }
  if (cause.in_kernel) {
    if (why) *why = "the mistake is in " + cause.candidate + "'s kernel, not in the problem";
    return std::nullopt;
  }
  std::vector<FixStep> steps = cause.fix;
  // A cause from before the catalog carried only its code.
  const causes::CauseSpec* spec = causes::find_cause_spec(cause.code);
  if (steps.empty() && spec && spec->apply && cause.fitted_name.empty())
    steps.push_back(FixStep{cause.code});
  if (steps.empty()) {
    if (why) *why = "no change to the problem fixes cause '" + cause.code + "'";
    return std::nullopt;
  }
  Problem fixed = problem;
  try {
    causes::apply_steps(fixed, *op, steps, {});
  } catch (const Error& e) {
    if (why) *why = e.what();
    return std::nullopt;
  }
  return fixed;
}

}  // namespace bnscope
