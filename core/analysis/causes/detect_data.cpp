// Detectors of the data family: layout, precision (of the inputs and of the sums), gamma, a
// gradient scale, channel order.
#include <algorithm>
#include <cmath>

#include "analysis/causes/channels.h"
#include "analysis/causes/fit.h"
#include "analysis/causes/fixes.h"
#include "analysis/causes/half_accumulation.h"
#include "analysis/causes/search.h"
#include "tensor/error.h"
#include "tensor/non_finite.h"

namespace bnscope::causes {

namespace {

const OutputTensor* named(const std::vector<OutputTensor>& outs, std::string_view name) {
  for (const OutputTensor& o : outs)
    if (o.name == name && o.defined) return &o;
  return nullptr;
}

// The output shaped like the data (x_backprop, dx, y, result); nullptr when there is none.
const OutputTensor* data_output(const Scope& s, const std::vector<OutputTensor>& outs) {
  const std::int64_t n = s.view.outer * s.view.channels * s.view.inner;
  for (const OutputTensor& o : outs)
    if (o.defined && o.tensor.numel() == n && o.tensor.rank() >= 2 && n > 0) return &o;
  return nullptr;
}

double correlation(const Tensor& a, const Tensor& b) {
  const std::int64_t n = std::min(a.numel(), b.numel());
  const std::int64_t stride = std::max<std::int64_t>(1, n / 200000);
  double sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0, k = 0;
  for (std::int64_t i = 0; i < n; i += stride) {
    const double x = a.get(i), y = b.get(i);
    if (!std::isfinite(x) || !std::isfinite(y)) continue;
    sa += x, sb += y, saa += x * x, sbb += y * y, sab += x * y, ++k;
  }
  if (k < 2) return 0;
  const double va = saa - sa * sa / k, vb = sbb - sb * sb / k;
  return va > 0 && vb > 0 ? (sab - sa * sb / k) / std::sqrt(va * vb) : 0;
}

bool all_ones(const Tensor& t) {
  for (std::int64_t i = 0; i < t.numel(); ++i)
    if (t.get(i) != 1.0) return false;
  return true;
}

}  // namespace

std::vector<Trial> detect_layout(const Search& s, const Trial&) {
  const Problem& p = s.problem();
  auto xi = p.inputs.find(std::string(s.op().data_input()));
  if (xi == p.inputs.end() || xi->second.rank() < 3) return {};
  // A layout mix-up scrambles the data output: only then is the whole re-run worth it.
  const OutputTensor* ref = data_output(s.sub(), s.sub().expected);
  const OutputTensor* cand = data_output(s.sub(), s.sub().candidate);
  const bool small = xi->second.numel() <= (1 << 20);
  if (!small && ref && cand && correlation(ref->tensor, cand->tensor) > 0.9) return {};
  const Shape declared = xi->second.shape();
  const bool last = s.channels_last();
  Trial t = make_trial("layout-swapped",
                       std::string("the data buffers are laid out ") + (last ? "NCHW" : "NHWC") +
                           " but were read as " + (last ? "NHWC" : "NCHW"),
                       std::string("re-ran with x and the gradient reinterpreted as ") +
                           (last ? "channels-first" : "channels-last") + " bytes",
                       std::string("read the data as ") + (last ? "NCHW" : "NHWC") +
                           " (or transpose it before saving)");
  t.in_kernel = std::string("the kernel indexes ") + (last ? "NHWC" : "NCHW") + " buffers as " +
                (last ? "NCHW" : "NHWC");
  t.whole_only = true;
  // Declared in the other layout, the re-run writes the reference's layout; an op with one layout
  // has its inputs moved into it, and its outputs are moved back.
  if (!s.op().has_attr("data_format"))
    t.after_run = [declared, last](std::vector<OutputTensor>& outs, const Scope&) {
      for (OutputTensor& o : outs)
        if (o.defined && o.tensor.shape() == declared)
          o.tensor = last ? to_channels_first(o.tensor) : to_channels_last(o.tensor);
    };
  return {t};
}

std::vector<Trial> detect_half_overflow(const Search& s, const Trial&) {
  if (s.t() != DType::F16) return {};
  const Scope& w = s.whole();
  double beyond = 0;
  for (const auto& [name, tensor] : w.problem.inputs)
    beyond = std::max(beyond, max_magnitude(tensor));
  for (const OutputTensor& o : w.expected)
    if (o.defined) beyond = std::max(beyond, max_magnitude(o.tensor));
  bool overflowed = beyond > kHalfMax;
  for (const OutputTensor& o : w.candidate) overflowed = overflowed || o.non_finite > 0;
  if (!overflowed) return {};
  return {make_trial("half-overflow", "values exceed half precision's range (65504)",
                     "re-ran in float32", "compute in float32")};
}

// The problem computes in half where the reference did not: its inputs are wider than the data
// type it runs in (converted by choice), or the saved data gradient is. Both are read from what
// is at hand; the re-run in float32 from the inputs as given is the evidence.
std::vector<Trial> detect_half_computation(const Search& s, const Trial&) {
  if (s.t() != DType::F16 && s.t() != DType::BF16) return {};
  const auto wider = [&](DType d) { return dtype_size(d) > dtype_size(s.t()); };
  bool converted = false;
  for (const auto& [name, tensor] : s.problem().inputs)
    converted = converted || (tensor.rank() >= 2 && wider(tensor.dtype()));
  const OutputTensor* ref = data_output(s.whole(), s.whole().expected);
  const bool saved_wider = ref && wider(ref->tensor.dtype());
  if (!converted && !saved_wider) return {};
  const std::string type = s.t() == DType::BF16 ? "bfloat16" : "float16";
  Trial t =
      make_trial("half-computation",
                 "this problem computes in " + type + " where the reference computed in float32" +
                     (converted ? " (its inputs were converted to " + type + ")" : ""),
                 "re-ran in float32 from the inputs as given", "compute in float32");
  t.in_kernel = "the kernel computes in " + type + " where the reference computed in float32";
  return {t};
}

std::vector<Trial> detect_precision(const Search& s, const Trial&) {
  if (s.t() != DType::F32) return {};
  std::vector<Trial> out;
  const bool grad = !s.op().gradient_input().empty();
  const std::string dy(s.op().gradient_input());
  for (const char* v : {"x:f16", "dy:f16", "both:f16", "both:bf16"}) {
    const std::string variant = v;
    if (!grad && variant.rfind("x:", 0) != 0) continue;
    const std::string which = variant.substr(0, variant.find(':'));
    const std::string type =
        variant.substr(variant.find(':') + 1) == "bf16" ? "bfloat16" : "float16";
    const std::string what = which == "x" ? "x" : which == "dy" ? dy : "x and " + dy;
    FixStep step;
    step.variant = variant;
    out.push_back(make_trial("input-precision",
                             "the reference computed from " + what + " rounded to " + type +
                                 " (mixed precision); this problem has float32",
                             "re-ran with " + what + " rounded to " + type,
                             "round " + what + " to " + type, step));
    out.back().in_kernel = "the kernel rounds " + what + " to " + type + " before computing";
  }
  return out;
}

std::vector<Trial> detect_half_accumulation(const Search& s, const Trial& base) {
  // It recomputes the outputs from the problem: a change to the problem before it (an epsilon,
  // a convention) is made first, and a cause measured on its outputs (a gradient scale)
  // combines with it after it; a base that maps outputs (the candidate's, or a re-run's into
  // another layout) cannot come before it.
  if (!accumulation_can_be_half(s.problem()) || base.instead_of_run || base.after_run) return {};
  const std::string type = s.t() == DType::BF16 ? "bfloat16" : "float16";
  Trial t;
  t.code = "half-accumulation";
  // The step no change to the problem makes: a re-run of a combination with another fix refuses
  // it, so that combination is never scored without the sums it names.
  t.steps = {FixStep{t.code}};
  t.title = "the reference accumulated the per-channel sums in " + type +
            " (a running sum rounded after every add); this problem's computation accumulates in "
            "float32, as TensorFlow's kernels do";
  t.evidence = "recomputed sum(dy) and sum(dy*(x - mean)) of every channel as running sums in " +
               type + " over its N*H*W values, and the outputs from them";
  t.suggestion = "nothing to change in this problem: compare with a reference that accumulates " +
                 type + " data in float32, as TensorFlow's kernels do";
  t.in_kernel = "the kernel accumulates the per-channel sums in " + type +
                " (a running sum rounded after every add) where TensorFlow accumulates in float32";
  t.instead_of_run = [](std::vector<OutputTensor>& o, const Scope& sc) {
    half_accumulated_outputs(sc.problem, o, sc.prepared);
  };
  t.recomputes = true;
  return {t};
}

std::vector<Trial> detect_scale_input(const Search& s, const Trial& base) {
  const OpSpec& op = s.op();
  if (op.scale_input.empty()) return {};
  auto g = s.problem().inputs.find(std::string(op.scale_input));
  if (g == s.problem().inputs.end()) return {};
  const std::string name(op.scale_input);
  if (!all_ones(g->second)) {
    Trial t = make_trial("scale-missing",
                         "the reference has no " + name + " (Keras scale=False: " + name +
                             " = 1 there); this problem has one",
                         "re-ran with " + name + " = 1", "set " + name + " to 1");
    t.in_kernel = "the kernel ignores " + name + " (computes as if " + name + " = 1)";
    return {t};
  }
  // gamma = 1 here: fit the reference's per-channel gamma from the data gradient (dx is
  // proportional to gamma channel by channel; the per-channel gradients do not read it).
  if (!op.is_grad || !base.code.empty()) return {};
  const Scope& w = s.whole();
  const OutputTensor* ref = data_output(w, w.expected);
  const OutputTensor* cand = data_output(w, w.candidate);
  if (!ref || !cand || ref->tensor.shape() != cand->tensor.shape()) return {};
  const std::int64_t stride = std::max<std::int64_t>(1, w.view.per_channel() / 4096);
  std::vector<double> gamma;
  bool differs = false;
  for (std::int64_t c = 0; c < w.view.channels; ++c) {
    const double k = least_squares_factor(channel_sample(ref->tensor, w.view, c, stride),
                                          channel_sample(cand->tensor, w.view, c, stride));
    differs = differs || std::fabs(k - 1) > 1e-3;
    gamma.push_back(k);
  }
  if (!differs) return {};
  FixStep step;
  step.per_channel = gamma;
  return {
      make_trial("scale-ignored",
                 "the reference used a real " + name + " (fitted per channel, e.g. " +
                     approx_text(gamma.front()) + " on channel 0); this problem has " + name +
                     " = 1 (scale=False)",
                 "fitted " + name + " per channel from the data gradient's ratio, re-ran with it",
                 "set " + name + " to the fitted values", step)};
}

std::vector<Trial> detect_gradient_scale(const Search& s, const Trial& base) {
  if (!s.op().is_grad) return {};
  const Scope& sub = s.sub();
  std::vector<OutputTensor> outs;
  if (base.code.empty()) {
    outs = sub.candidate;
  } else {
    auto o = s.outputs(base, s.scope_for(base));
    if (!o) return {};
    outs = std::move(*o);
  }
  const Scope& sc = base.code.empty() ? sub : s.scope_for(base);
  // offset_backprop (db) is the sum of the gradient alone: k there is free of every other
  // cause (epsilon, variance, gamma); the data gradient is the fallback.
  const OutputTensor* ref = named(sc.expected, "offset_backprop");
  const OutputTensor* cand = named(outs, "offset_backprop");
  if (!ref || !cand) ref = named(sc.expected, "db"), cand = named(outs, "db");
  if (!ref || !cand || ref->tensor.numel() != cand->tensor.numel())
    ref = data_output(sc, sc.expected), cand = data_output(sc, outs);
  if (!ref || !cand) return {};
  const double k = least_squares_factor(ref->tensor, cand->tensor);
  if (!std::isfinite(k) || k <= 0 || std::fabs(k - 1) < 1e-3) return {};
  const std::string two = power_of_two_text(k);
  const std::string dy(s.op().gradient_input());
  Trial t =
      make_trial("gradient-scale",
                 "the reference's gradients are k x this problem's with one k = " + approx_text(k) +
                     (two.empty() ? " (not a power of two)"
                                  : " = " + two + " (a power of two: a loss scale not removed)"),
                 "fitted k by least squares on the data gradient, applied to every output",
                 "multiply " + dy + " by " + approx_text(k) + " (or divide the reference by it)",
                 FixStep{"", k});
  t.in_kernel = "the kernel's gradients are " + approx_text(k) + " x the right ones" +
                (two.empty() ? "" : " (" + two + ", a power of two)");
  t.fitted_name = "k";
  t.fitted = k;
  t.instead_of_run = [k](std::vector<OutputTensor>& o, const Scope&) {
    for (OutputTensor& x : o)
      if (x.defined && x.tensor.numel() > 0) x.tensor = scaled_by(x.tensor, k);
  };
  return {t};
}

std::vector<Trial> detect_permutation(const Search& s, const Trial& base) {
  if (!base.code.empty()) return {};
  const Scope& w = s.whole();
  const std::int64_t c = w.view.channels;
  if (c < 2 || c > 8192) return {};
  // Every channel's per-channel outputs, normalized by each output's spread.
  std::vector<std::vector<double>> ref_f(static_cast<std::size_t>(c)),
      cand_f(static_cast<std::size_t>(c));
  for (const OutputTensor& e : w.expected) {
    const OutputTensor* k = named(w.candidate, e.name);
    if (!e.defined || !k || e.tensor.numel() != c || k->tensor.numel() != c) continue;
    double spread = 0;
    for (std::int64_t i = 0; i < c; ++i) spread = std::max(spread, std::fabs(e.tensor.get(i)));
    if (!(spread > 0)) continue;
    for (std::int64_t i = 0; i < c; ++i) {
      ref_f[static_cast<std::size_t>(i)].push_back(e.tensor.get(i) / spread);
      cand_f[static_cast<std::size_t>(i)].push_back(k->tensor.get(i) / spread);
    }
  }
  if (ref_f.front().empty()) return {};
  std::vector<std::int64_t> perm(static_cast<std::size_t>(c));
  std::vector<bool> used(static_cast<std::size_t>(c), false);
  bool identity = true;
  for (std::int64_t i = 0; i < c; ++i) {
    double best = INFINITY;
    std::int64_t at = -1;
    for (std::int64_t j = 0; j < c; ++j) {
      double d = 0;
      for (std::size_t f = 0; f < ref_f[0].size(); ++f)
        d += std::fabs(ref_f[static_cast<std::size_t>(i)][f] -
                       cand_f[static_cast<std::size_t>(j)][f]);
      if (d < best) best = d, at = j;
    }
    if (at < 0 || used[static_cast<std::size_t>(at)] || !(best < 1e-2)) return {};
    used[static_cast<std::size_t>(at)] = true;
    perm[static_cast<std::size_t>(i)] = at;
    identity = identity && at == i;
  }
  if (identity) return {};
  std::string pairs;
  int shown = 0;
  for (std::int64_t i = 0; i < c && shown < 4; ++i)
    if (perm[static_cast<std::size_t>(i)] != i)
      pairs += (shown++ ? ", " : "") + std::string("channel ") + std::to_string(i) + " is " +
               std::to_string(perm[static_cast<std::size_t>(i)]);
  FixStep step;
  step.permutation = perm;
  Trial t =
      make_trial("channels-permuted",
                 "the reference's channels are this problem's in another order (" + pairs + ")",
                 "matched every channel's per-channel outputs, reordered every output",
                 "reorder the inputs' channels", step);
  t.in_kernel = "the kernel writes the channels in another order (" + pairs + ")";
  t.whole_only = true;
  const bool last = s.channels_last();
  t.instead_of_run = [perm, last](std::vector<OutputTensor>& o, const Scope& sc) {
    for (OutputTensor& x : o)
      if (x.defined) x.tensor = take_channels(x.tensor, sc.view, last, perm);
  };
  return {t};
}

}  // namespace bnscope::causes
