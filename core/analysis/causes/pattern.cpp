// When no cause of the catalog fits: the error's pattern in words, what was tried (each with the
// best error ratio its fix reached) and the next thing to check.
#include <algorithm>
#include <cmath>

#include "analysis/causes/channels.h"
#include "analysis/causes/fit.h"
#include "analysis/causes/fixes.h"
#include "analysis/causes/search.h"

namespace bnscope::causes {

namespace {

const OutputTensor* by_name(const std::vector<OutputTensor>& outs, const std::string& name) {
  for (const OutputTensor& o : outs)
    if (o.name == name && o.defined) return &o;
  return nullptr;
}

}  // namespace

Cause describe_pattern(const Search& s, std::vector<RuledOut> ruled_out) {
  const Comparison& before = s.before();
  std::vector<std::string> failing, passing;
  // The output the pattern is read from: the largest that fails (a forward's failing batch_mean,
  // not its passing y), else the largest.
  const OutputDiff* data = nullptr;
  for (const OutputDiff& o : before.outputs) {
    if (!o.compared || o.count == 0) continue;  // an empty output agrees trivially
    (o.passed ? passing : failing).push_back(o.name);
    if (!data || (data->passed && !o.passed) || (data->passed == o.passed && o.count > data->count))
      data = &o;
  }
  std::string text;
  for (std::size_t i = 0; i < failing.size(); ++i)
    text += (i ? (i + 1 == failing.size() ? " and " : ", ") : "") + failing[i];
  text +=
      std::string(passing.empty() ? "" : " only") + (failing.size() == 1 ? " differs" : " differ");
  std::vector<std::string> hints;
  std::string next;

  // Channels: how many, uniform or localized.
  if (data && !data->channels.empty()) {
    std::int64_t bad = 0;
    std::vector<double> errs;
    for (const ChannelError& c : data->channels) {
      bad += c.mismatches > 0;
      if (c.mismatches > 0) errs.push_back(c.max_abs);
    }
    text += ", on " + std::to_string(bad) + " of " + std::to_string(data->channels.size()) +
            " channels";
    if (!errs.empty()) {
      const auto [lo, hi] = std::minmax_element(errs.begin(), errs.end());
      text += *hi <= 10 * *lo
                  ? " (uniform)"
                  : " (localized: errors spread over " + approx_text(*hi / std::max(*lo, 1e-300)) +
                        "x between channels)";
    }
  }

  // What the error follows, on the subsample.
  const Scope& sub = s.sub();
  const OutputTensor* ref = data ? by_name(sub.expected, data->name) : nullptr;
  const OutputTensor* cand = data ? by_name(sub.candidate, data->name) : nullptr;
  if (ref && cand && ref->tensor.numel() == cand->tensor.numel() && sub.view.channels > 0 &&
      ref->tensor.numel() == sub.view.outer * sub.view.channels * sub.view.inner) {
    const std::int64_t stride = std::max<std::int64_t>(1, sub.view.per_channel() / 2048);
    std::vector<double> ch_err, ch_var, el_err, el_x, el_dy, ratios;
    const BatchMoments m = batch_moments(sub.problem, s.op());
    const Tensor* x = nullptr;
    const Tensor* dy = nullptr;
    if (auto it = sub.problem.inputs.find(std::string(s.op().data_input()));
        it != sub.problem.inputs.end())
      x = &it->second;
    if (auto it = sub.problem.inputs.find(std::string(s.op().gradient_input()));
        it != sub.problem.inputs.end())
      dy = &it->second;
    for (std::int64_t c = 0; c < sub.view.channels; ++c) {
      const std::vector<double> r = channel_sample(ref->tensor, sub.view, c, stride);
      const std::vector<double> k = channel_sample(cand->tensor, sub.view, c, stride);
      std::vector<double> xs, ds;
      if (x) xs = channel_sample(*x, sub.view, c, stride);
      if (dy) ds = channel_sample(*dy, sub.view, c, stride);
      double e2 = 0, r2 = 0;
      for (std::size_t i = 0; i < r.size(); ++i) {
        const double d = std::fabs(r[i] - k[i]);
        if (!std::isfinite(d)) continue;
        e2 += d * d, r2 += r[i] * r[i];
        el_err.push_back(d);
        el_x.push_back(i < xs.size() ? std::fabs(xs[i] - m.mean[static_cast<std::size_t>(c)])
                                     : NAN);
        el_dy.push_back(i < ds.size() ? std::fabs(ds[i]) : NAN);
        if (std::fabs(k[i]) > 1e-12) ratios.push_back(r[i] / k[i]);
      }
      ch_err.push_back(r2 > 0 ? std::sqrt(e2 / r2) : NAN);
      ch_var.push_back(m.variance[static_cast<std::size_t>(c)]);
    }
    const double with_var = rank_correlation(ch_err, ch_var);
    if (with_var < -0.6) {
      hints.push_back(
          "the relative error is larger where the channel's variance is small "
          "(epsilon-like)");
      next = "compare the epsilon and the variance (or reserve_space_2) each side used";
    }
    if (rank_correlation(el_err, el_x) > 0.5) {
      hints.push_back("the error grows with |x - mean| (precision-like)");
      if (next.empty()) next = "check for mixed precision: the dtype x had on the reference's side";
    }
    if (rank_correlation(el_err, el_dy) > 0.5) {
      hints.push_back("the error grows with |" + std::string(s.op().gradient_input()) +
                      "| (precision-like)");
      if (next.empty())
        next = "check for mixed precision: the dtype of the gradient the reference got";
    }
    if (ratios.size() > 8) {
      const double mid = median(ratios);
      double dev = 0;
      for (double q : ratios) dev += std::fabs(q - mid);
      dev /= static_cast<double>(ratios.size());
      if (std::fabs(mid - 1) > 1e-3 && dev < 0.01 * std::fabs(mid)) {
        hints.push_back("reference / candidate is a nearly constant " + approx_text(mid) +
                        " (scale-like)");
        if (next.empty()) next = "look for a loss scale or a gamma applied on one side only";
      }
    }
    if (hints.empty())
      hints.push_back(
          "the error follows neither the variance, |x|, |dy| nor a "
          "constant ratio (noise-like)");
  }
  if (s.candidate_backend() != "cpu" && s.cpu_as_is().passed) {
    hints.push_back(
        "the cpu backend on the same problem agrees with the reference: the "
        "difference is " +
        s.candidate_backend() + "'s own");
    next = "run " + s.candidate_backend() +
           " on a smaller shape and the other layout to find "
           "where its kernel departs";
  }
  if (next.empty())
    next = "save the reference's own inputs next to its outputs and diff against exactly those";

  Cause c;
  c.code = "unexplained";
  c.pattern_only = true;
  c.title = "no catalog cause fits: " + text;
  for (const std::string& h : hints) c.title += "; " + h;
  if (s.op().is_grad) {
    ruled_out.push_back({"offset-irrelevant", NAN});
  }
  std::string tried;
  for (const RuledOut& r : ruled_out)
    if (r.code != "offset-irrelevant")
      tried += (tried.empty() ? "" : ", ") + r.code + " (best ratio " +
               (std::isfinite(r.best_ratio) ? approx_text(r.best_ratio) : "-") + ")";
  c.explanation = (tried.empty() ? "no fix could be tried here" : "tried and ruled out: " + tried);
  if (s.op().is_grad) c.explanation += "; offset/beta does not enter the gradients";
  c.before = before.worst_tolerance_ratio();
  c.after = c.before;
  for (const OutputDiff& o : before.outputs)
    if (o.compared) c.max_abs_before = std::max(c.max_abs_before, o.max_abs);
  c.max_abs_after = c.max_abs_before;
  c.candidate = s.candidate_backend();
  c.confidence = Confidence::Low;
  c.suggestion = next;
  c.ruled_out = std::move(ruled_out);
  return c;
}

}  // namespace bnscope::causes
