#include "analysis/cause_finder.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>

#include "analysis/half_sums.h"
#include "engine/engine.h"
#include "ops/bn_math.h"
#include "tensor/error.h"

namespace bnscope {

namespace {

struct Trial {
  std::string code;
  std::string title;
  std::string explanation;
  Problem problem;
  // Maps the re-run's outputs into the form expected was produced in (layout traps).
  std::function<void(std::vector<OutputTensor>&)> adjust;
};

bool declared_channels_last(const Problem& p, const OpSpec& op) {
  if (!op.has_attr("data_format")) return true;
  auto f = parse_data_format(attr_string(p, "data_format"));
  return !f || is_channels_last(*f);
}

double max_abs_value(const Tensor& t) {
  double m = 0;
  for (double v : t.to_doubles())
    if (!std::isnan(v)) m = std::max(m, std::fabs(v));
  return m;
}

DiffOptions without_worst(const DiffOptions& options) {
  DiffOptions quick = options;
  quick.worst_k = 0;
  return quick;
}

Comparison compare_run(const Problem& problem, std::string_view backend,
                       const std::vector<OutputTensor>& expected, const DiffOptions& options,
                       const std::function<void(std::vector<OutputTensor>&)>& adjust,
                       const RunContext& ctx) {
  Result r = run_problem(problem, backend, ctx);
  if (adjust) adjust(r.outputs);
  return compare_results("expected", expected, r.backend, r.outputs, without_worst(options));
}

double max_abs_of(const Comparison& c) {
  double m = 0;
  for (const OutputDiff& o : c.outputs)
    if (o.compared) m = std::max(m, o.nan_mismatches ? INFINITY : o.max_abs);
  return m;
}

std::optional<Trial> convention_trial(const Problem& p, const OpSpec& op) {
  if (!op.is_grad || op.family != OpFamily::Fused || !attr_bool(p, "is_training")) return {};
  Trial t{"reserve-convention", "", "", p, {}};
  const bool was_var = p.convention == ReserveConvention::Variance;
  t.problem.convention = was_var ? ReserveConvention::InvStd : ReserveConvention::Variance;
  t.title = std::string("reserve_space_2 holds ") +
            (was_var ? "1/sqrt(variance + epsilon)" : "the variance") + ", not " +
            (was_var ? "the variance" : "1/sqrt(variance + epsilon)");
  t.explanation = "re-ran with --convention " + std::string(convention_name(t.problem.convention));
  return t;
}

std::optional<Trial> layout_trial(const Problem& p, const OpSpec& op) {
  auto xi = p.inputs.find(std::string(op.data_input()));
  if (xi == p.inputs.end() || xi->second.rank() < 3) return {};
  const Shape declared = xi->second.shape();
  const bool last = declared_channels_last(p, op);
  Trial t{"layout-swapped", "", "", p, {}};
  for (auto& [name, tensor] : t.problem.inputs)
    if (tensor.shape() == declared) tensor = reinterpret_other_layout(tensor, last);
  t.title = std::string("the data buffers are laid out ") + (last ? "NCHW" : "NHWC") +
            " but were read as " + (last ? "NHWC" : "NCHW");
  t.explanation = std::string("re-ran with x and the gradient reinterpreted as ") +
                  (last ? "channels-first" : "channels-last") + " bytes";
  t.adjust = [declared, last](std::vector<OutputTensor>& outs) {
    for (OutputTensor& o : outs)
      if (o.defined && o.tensor.shape() == declared)
        o.tensor = last ? to_channels_first(o.tensor) : to_channels_last(o.tensor);
  };
  return t;
}

// The kernel's side of the same mix-up: the data is what it says, but the kernel indexes the
// declared layout as the other one (NCHW buffers read with NHWC offsets). Handing it the data in
// the other layout's byte order, under the declared shape, is what such a kernel reads correctly;
// its outputs then come back in that byte order too.
std::optional<Trial> kernel_layout_trial(const Problem& p, const OpSpec& op) {
  auto xi = p.inputs.find(std::string(op.data_input()));
  if (xi == p.inputs.end() || xi->second.rank() < 3 || !op.has_attr("data_format")) return {};
  const Shape declared = xi->second.shape();
  const bool last = declared_channels_last(p, op);
  Trial t{"layout-swapped", "", "", p, {}};
  for (auto& [name, tensor] : t.problem.inputs)
    if (tensor.shape() == declared)
      tensor = (last ? to_channels_first(tensor) : to_channels_last(tensor)).reshaped(declared);
  t.title = std::string("the kernel indexes ") + (last ? "NHWC" : "NCHW") + " buffers as " +
            (last ? "NCHW" : "NHWC");
  t.explanation = std::string("re-ran with x and the gradient handed over in ") +
                  (last ? "NCHW" : "NHWC") + " byte order";
  const Shape other = channel_axis_moved(declared, last);
  t.adjust = [declared, other, last](std::vector<OutputTensor>& outs) {
    for (OutputTensor& o : outs)
      if (o.defined && o.tensor.shape() == declared) {
        const Tensor bytes = o.tensor.reshaped(other);
        o.tensor = last ? to_channels_last(bytes) : to_channels_first(bytes);
      }
  };
  return t;
}

std::optional<Trial> epsilon_trial(const Problem& p, const OpSpec& op) {
  const std::string name(op.epsilon_attr());
  if (!op.has_attr(name)) return {};
  double eps = 0;
  try {
    eps = attr_float(p, name);
  } catch (const Error&) {
    return {};
  }
  if (!below_cudnn_min_epsilon(eps)) return {};
  Trial t{"epsilon-clamped", "", "", p, {}};
  t.problem.attrs[name] = kCudnnMinEpsilon;
  const std::string minimum = attr_value_text(AttrValue{kCudnnMinEpsilon});
  t.title = name + " " + attr_value_text(AttrValue{eps}) +
            " is below cuDNN's minimum; the reference clamped it to " + minimum +
            " (as tf.nn.fused_batch_norm does)";
  t.explanation = "re-ran with " + name + "=" + minimum;
  return t;
}

std::optional<Trial> half_trial(const Problem& p, const OpSpec& op,
                                const std::vector<OutputTensor>& expected, const Result& base) {
  const std::string x(op.data_input());
  const DType t_type = p.dtype ? *p.dtype : p.inputs.count(x) ? p.inputs.at(x).dtype() : DType::F32;
  if (t_type != DType::F16) return {};
  double beyond = 0;
  for (const auto& [name, tensor] : p.inputs) beyond = std::max(beyond, max_abs_value(tensor));
  for (const OutputTensor& o : expected)
    if (o.defined) beyond = std::max(beyond, max_abs_value(o.tensor));
  bool overflowed = beyond > kHalfMax;
  for (const OutputTensor& o : base.outputs) overflowed = overflowed || o.non_finite > 0;
  if (!overflowed) return {};
  Trial t{"half-overflow", "values exceed half precision's range (65504)", "", p, {}};
  t.problem.dtype = DType::F32;
  for (auto& [name, tensor] : t.problem.inputs)
    if (tensor.dtype() == DType::F16) tensor = tensor.to(DType::F32);
  t.explanation = "re-ran in float32";
  return t;
}

}  // namespace

Tensor reinterpret_other_layout(const Tensor& t, bool declared_channels_last) {
  const Shape& s = t.shape();
  if (s.size() < 3) return t;
  Shape other;
  other.push_back(s[0]);
  if (declared_channels_last) {  // [N, spatial..., C]: the bytes really are [N, C, spatial...]
    other.push_back(s.back());
    other.insert(other.end(), s.begin() + 1, s.end() - 1);
    return to_channels_last(t.reshaped(other));
  }
  other.insert(other.end(), s.begin() + 2,
               s.end());  // [N, C, spatial...] really [N, spatial..., C]
  other.push_back(s[1]);
  return to_channels_first(t.reshaped(other));
}

std::vector<Cause> find_causes(const Problem& problem, const Result& base,
                               const std::vector<OutputTensor>& expected,
                               const DiffOptions& options, const RunContext& ctx) {
  const OpSpec* op = find_op(problem.op);
  if (!op) fail("unknown op '" + problem.op + "'");
  const std::string& candidate_backend = base.backend;
  const Comparison before =
      compare_results("expected", expected, base.backend, base.outputs, without_worst(options));
  const double before_ratio = before.worst_tolerance_ratio();

  std::vector<Trial> trials;
  for (auto t : {convention_trial(problem, *op), layout_trial(problem, *op),
                 kernel_layout_trial(problem, *op), epsilon_trial(problem, *op),
                 half_trial(problem, *op, expected, base)})
    if (t) trials.push_back(std::move(*t));

  std::vector<Cause> causes;
  for (const Trial& t : trials) {
    Comparison after;
    try {
      after = compare_run(t.problem, candidate_backend, expected, options, t.adjust, ctx);
    } catch (const Error& e) {
      if (e.code() == ErrorCode::Cancelled) throw;
      continue;  // the variant does not validate or run here: no evidence either way
    }
    const double after_ratio = after.worst_tolerance_ratio();
    const bool resolves = after.passed;
    const bool tenfold = after_ratio < before_ratio && after_ratio * 10 <= before_ratio;
    if (!(resolves && !before.passed) && !tenfold) continue;
    causes.push_back({t.code, t.title, t.explanation, before_ratio, after_ratio, max_abs_of(before),
                      max_abs_of(after), resolves, candidate_backend});
  }
  std::stable_sort(causes.begin(), causes.end(), [](const Cause& a, const Cause& b) {
    if (a.resolves != b.resolves) return a.resolves;
    return a.after < b.after;
  });
  add_half_sum_overflow(problem, base, expected, options, causes);
  return causes;
}

}  // namespace bnscope
