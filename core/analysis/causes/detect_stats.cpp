// Detectors of the statistics family: what reserve_space_2 holds, which epsilon, which variance
// (biased or not, batch or moving), which mode and how the forward blends its running statistics.
#include <cmath>
#include <string>

#include "analysis/causes/channels.h"
#include "analysis/causes/fit.h"
#include "analysis/causes/fixes.h"
#include "analysis/causes/search.h"
#include "ops/bn_math.h"
#include "tensor/error.h"

namespace bnscope::causes {

namespace {

bool training(const Search& s) {
  return s.op().has_modes() && attr_bool(s.problem(), "is_training");
}

bool fused_training_grad(const Search& s) {
  return s.op().is_grad && s.op().family == OpFamily::Fused && training(s);
}

double epsilon_of(const Search& s) {
  try {
    return attr_float(s.problem(), s.op().epsilon_attr());
  } catch (const Error&) {
    return NAN;
  }
}

// The per-channel epsilon that makes the candidate's scale_backprop the reference's: it enters
// only through 1/sqrt(var + eps), so ds_ref / ds_cand = sqrt((var + e) / (var + e_ref)).
std::vector<double> epsilon_per_channel(const Search& s, double eps) {
  std::vector<double> out;
  const OpSpec& op = s.op();
  if (!op.is_grad || op.family != OpFamily::Fused) return out;
  if (fused_training_grad(s) && s.problem().convention == ReserveConvention::InvStd) return out;
  const Scope& sc = s.sub();
  const OutputTensor *ref = nullptr, *cand = nullptr;
  for (const OutputTensor& o : sc.expected)
    if (o.name == "scale_backprop" && o.defined) ref = &o;
  for (const OutputTensor& o : sc.candidate)
    if (o.name == "scale_backprop" && o.defined) cand = &o;
  auto var = sc.problem.inputs.find(std::string(op.variance_input));
  if (!ref || !cand || var == sc.problem.inputs.end()) return out;
  const std::int64_t n = std::min(ref->tensor.numel(), cand->tensor.numel());
  if (var->second.numel() != n) return out;
  for (std::int64_t c = 0; c < n; ++c) {
    const double r = ref->tensor.get(c), k = cand->tensor.get(c), v = var->second.get(c);
    if (!(std::fabs(r) > 0) || !std::isfinite(r) || !std::isfinite(k)) continue;
    out.push_back((v + eps) * (k / r) * (k / r) - v);
  }
  return out;
}

// The framework default a fitted epsilon is near, as attr text.
std::string nearest_default(double eps) {
  double best = NAN;
  for (const FrameworkEpsilon& f : framework_epsilons())
    if (std::isnan(best) || std::fabs(eps - f.value) < std::fabs(eps - best)) best = f.value;
  return attr_value_text(AttrValue{best});
}

}  // namespace

std::vector<Trial> detect_convention(const Search& s, const Trial&) {
  // A training forward writes reserve_space_2 in the problem's convention; a grad reads it.
  const bool forward = !s.op().is_grad && s.op().family == OpFamily::Fused && training(s);
  if (!fused_training_grad(s) && !forward) return {};
  const bool was_var = s.problem().convention == ReserveConvention::Variance;
  const std::string other = was_var ? "inv_std" : "variance";
  std::vector<Trial> out;
  if (forward) {
    out.push_back(make_trial(
        "reserve-convention",
        std::string("the reference's reserve_space_2 holds ") +
            (was_var ? "1/sqrt(variance + epsilon) (cuDNN)" : "the variance") +
            ", this problem's " + (was_var ? "the variance" : "1/sqrt(variance + epsilon)"),
        "re-ran with the " + other + " convention", "declare the " + other + " convention"));
    out.back().in_kernel = std::string("the kernel writes reserve_space_2 as ") +
                           (was_var ? "1/sqrt(variance + epsilon)" : "the variance") +
                           " where the problem asks for " +
                           (was_var ? "the variance" : "1/sqrt(variance + epsilon)");
    return out;
  }
  out.push_back(make_trial("reserve-convention",
                           std::string("reserve_space_2 holds ") +
                               (was_var ? "1/sqrt(variance + epsilon)" : "the variance") +
                               ", not " + (was_var ? "the variance" : "1/sqrt(variance + epsilon)"),
                           "re-ran with the " + other + " convention",
                           "declare the " + other + " convention"));
  out.back().in_kernel = std::string("the kernel reads reserve_space_2 as ") +
                         (was_var ? "1/sqrt(variance + epsilon)" : "the variance") +
                         " where it holds " +
                         (was_var ? "the variance" : "1/sqrt(variance + epsilon)");
  out.push_back(make_trial("reserve-inverse-variance",
                           "reserve_space_2 holds 1/(variance + epsilon), not " +
                               std::string(was_var ? "the variance" : "1/sqrt(variance + epsilon)"),
                           "re-ran with reserve_space_2 read as 1/(variance + epsilon)",
                           "convert reserve_space_2 from 1/(variance + epsilon)"));
  out.back().in_kernel =
      "the kernel reads reserve_space_2 as 1/(variance + epsilon) where it "
      "holds " +
      std::string(was_var ? "the variance" : "1/sqrt(variance + epsilon)");
  return out;
}

std::vector<Trial> detect_epsilon_clamped(const Search& s, const Trial&) {
  const double eps = epsilon_of(s);
  if (!std::isfinite(eps) || !below_cudnn_min_epsilon(eps)) return {};
  const std::string name(s.op().epsilon_attr());
  const std::string minimum = attr_value_text(AttrValue{kCudnnMinEpsilon});
  Trial t = make_trial("epsilon-clamped",
                       name + " " + attr_value_text(AttrValue{eps}) +
                           " is below cuDNN's minimum; the reference clamped it to " + minimum +
                           " (as tf.nn.fused_batch_norm does)",
                       "re-ran with " + name + "=" + minimum, "set " + name + "=" + minimum);
  t.in_kernel = "the kernel clamps " + name + " " + attr_value_text(AttrValue{eps}) +
                " to cuDNN's minimum " + minimum;
  return {t};
}

std::vector<Trial> detect_epsilon(const Search& s, const Trial& base) {
  const double eps = epsilon_of(s);
  if (!std::isfinite(eps)) return {};
  if (fused_training_grad(s) && s.problem().convention == ReserveConvention::InvStd)
    return {};  // the grad reads 1/sqrt(var + eps) from the reserve space: eps never enters
  const std::string name(s.op().epsilon_attr());
  auto objective = [&](double e) {
    Trial t = base;
    t.steps.push_back(FixStep{"epsilon-mismatch", e});
    return s.score(t, s.sub()).sq;
  };
  std::vector<double> per_channel =
      base.code.empty() ? epsilon_per_channel(s, eps) : std::vector<double>{};
  const double guess = median(per_channel);
  double lo, hi;
  int steps = 12;
  if (std::isfinite(guess) && guess > 0) {
    // Channels that agree on it leave a narrow range to search.
    std::vector<double> spread;
    for (double e : per_channel) spread.push_back(std::fabs(e - guess) / guess);
    const bool agree = median(spread) < 0.05;
    lo = guess / (agree ? 1.25 : 3), hi = guess * (agree ? 1.25 : 3);
    if (agree) steps = 8;
  } else {  // decades first, then the best decade's neighbourhood
    double best = INFINITY, at = eps;
    for (int d = -9; d <= 0; ++d) {
      const double e = std::pow(10.0, d);
      const double f = objective(e);
      if (f < best) best = f, at = e;
    }
    lo = at / 10, hi = at * 10;
  }
  const double fitted = minimize_log(objective, lo, hi, steps);
  if (std::fabs(fitted - eps) <= 0.05 * eps) return {};
  const std::string who = framework_epsilon_name(fitted);
  std::string evidence = "fitted " + name + " = " + approx_text(fitted) + " on " +
                         std::to_string(s.sub().view.channels) + " channels";
  if (!per_channel.empty())
    evidence += " (per channel from scale_backprop: median " + approx_text(guess) + " over " +
                std::to_string(per_channel.size()) + " channels)";
  evidence += ", re-ran with it";
  Trial t = make_trial("epsilon-mismatch",
                       "the reference used " + name + " ~ " + approx_text(fitted) +
                           (who.empty() ? "" : ", " + who) + "; this problem has " +
                           attr_value_text(AttrValue{eps}),
                       evidence,
                       "set " + name + "=" + approx_text(fitted) +
                           (who.empty() || nearest_default(fitted) == approx_text(fitted)
                                ? ""
                                : " (" + who + " is " + nearest_default(fitted) + ")"),
                       FixStep{"", fitted});
  t.in_kernel = "the kernel uses " + name + " ~ " + approx_text(fitted) + ", not the problem's " +
                attr_value_text(AttrValue{eps});
  t.fitted_name = name;
  t.fitted = fitted;
  return {t};
}

std::vector<Trial> detect_bessel(const Search& s, const Trial&) {
  const OpSpec& op = s.op();
  if (!op.is_grad || op.variance_input.empty()) return {};
  const std::int64_t m = s.whole().view.per_channel();
  if (m < 2) return {};
  const double f = bessel_factor(m);
  std::vector<Trial> out;
  for (const bool unbiased : {true, false}) {
    const double k = unbiased ? f : 1 / f;
    Trial t = make_trial(
        "bessel-variance",
        std::string("the reference's variance is the ") + (unbiased ? "unbiased" : "biased") +
            " one (x " + approx_text(k) + ", N = " + std::to_string(m) + "); this problem's is " +
            (unbiased ? "biased" : "unbiased"),
        "re-ran with the variance multiplied by " + approx_text(k),
        "multiply " + std::string(op.variance_input) + " by " + approx_text(k), FixStep{"", k});
    t.in_kernel = std::string("the kernel uses the ") + (unbiased ? "unbiased" : "biased") +
                  " variance (x " + approx_text(k) + ", N = " + std::to_string(m) + ")";
    t.fitted_name = "factor";
    t.fitted = k;
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<Trial> detect_statistics(const Search& s, const Trial&) {
  const OpSpec& op = s.op();
  if (op.mean_input.empty() || op.variance_input.empty()) return {};
  if (!op.is_grad && training(s)) return {};  // the forward computes the batch's itself
  const Problem& p = s.sub().problem;
  if (!p.inputs.count(std::string(op.mean_input)) || !p.inputs.count(std::string(op.data_input())))
    return {};
  // Statistics that already are the batch's explain nothing.
  const BatchMoments m = batch_moments(p, op);
  const Tensor& mean = p.inputs.at(std::string(op.mean_input));
  double off = 0;
  for (std::int64_t c = 0; c < mean.numel() && c < static_cast<std::int64_t>(m.mean.size()); ++c)
    off = std::max(off, std::fabs(mean.get(c) - m.mean[static_cast<std::size_t>(c)]) /
                            (std::sqrt(m.variance[static_cast<std::size_t>(c)]) + 1e-12));
  if (off < 1e-3) return {};
  Trial t = make_trial("moving-statistics",
                       "the reference normalized with the batch's own mean and variance; this "
                       "problem's " +
                           std::string(op.mean_input) + "/" + std::string(op.variance_input) +
                           " are other statistics (moving averages?)",
                       "re-ran with them replaced by the batch moments of x",
                       "use the batch's mean and variance");
  t.in_kernel = "the kernel normalizes with the batch's own mean and variance, not the given " +
                std::string(op.mean_input) + "/" + std::string(op.variance_input);
  return {t};
}

std::vector<Trial> detect_mode(const Search& s, const Trial&) {
  if (!s.op().has_modes()) return {};
  const bool was = attr_bool(s.problem(), "is_training");
  Trial t = make_trial("mode-flipped",
                       std::string("the reference ran in ") + std::string(mode_name(!was)) +
                           " mode; this problem in " + std::string(mode_name(was)),
                       std::string("re-ran with is_training=") + (was ? "false" : "true"),
                       std::string("set is_training=") + (was ? "false" : "true"));
  t.in_kernel = "the kernel computes the " + std::string(mode_name(!was)) +
                "-mode gradient for a " + std::string(mode_name(was)) + "-mode problem";
  return {t};
}

std::vector<Trial> detect_avg_factor(const Search& s, const Trial&) {
  const OpSpec& op = s.op();
  constexpr std::string_view kAttr = "exponential_avg_factor";
  if (op.is_grad || !training(s) || !op.has_attr(kAttr) || op.mean_input.empty()) return {};
  const Scope& sc = s.sub();
  auto mean_in = sc.problem.inputs.find(std::string(op.mean_input));
  const OutputTensor* ref = nullptr;
  for (const OutputTensor& o : sc.expected)
    if (o.name == "batch_mean" && o.defined) ref = &o;
  // Without a running mean there is nothing a factor below 1 could have blended.
  if (!ref || mean_in == sc.problem.inputs.end() || mean_in->second.numel() == 0) return {};
  // batch_mean = (1 - f) * mean + f * (the batch's own mean): f is the least-squares slope of
  // the reference's step away from the running mean against the batch's.
  const BatchMoments m = batch_moments(sc.problem, op);
  const std::int64_t n = std::min<std::int64_t>(
      {ref->tensor.numel(), mean_in->second.numel(), static_cast<std::int64_t>(m.mean.size())});
  std::vector<double> step_ref, step_batch;
  for (std::int64_t c = 0; c < n; ++c) {
    const double running = mean_in->second.get(c);
    step_ref.push_back(ref->tensor.get(c) - running);
    step_batch.push_back(m.mean[static_cast<std::size_t>(c)] - running);
  }
  // In the four digits it is said in: a float32 batch_mean leaves the slope at 0.60000004.
  const double slope = least_squares_factor(step_ref, step_batch);
  const double f = std::isfinite(slope) ? std::stod(approx_text(slope)) : slope;
  double given = 1;
  try {
    given = attr_float(s.problem(), kAttr);
  } catch (const Error&) {
  }
  if (!std::isfinite(f) || std::fabs(f - given) <= 1e-3 * std::max(std::fabs(given), 1e-3))
    return {};
  const std::string attr(kAttr);
  Trial t =
      make_trial("exponential-avg-factor",
                 "the reference blended the running statistics with " + attr + " ~ " +
                     approx_text(f) + "; this problem has " + attr_value_text(AttrValue{given}),
                 "fitted from batch_mean against the batch's own mean and the running mean "
                 "on " +
                     std::to_string(n) + " channels, re-ran with it",
                 "set " + attr + "=" + approx_text(f), FixStep{"", f});
  t.in_kernel = "the kernel blends the running statistics with " + attr + " ~ " + approx_text(f) +
                ", not the problem's " + attr_value_text(AttrValue{given});
  t.fitted_name = attr;
  t.fitted = f;
  return {t};
}

}  // namespace bnscope::causes
