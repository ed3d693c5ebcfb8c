// Causes read from the candidate's comparison: summation order, and a few channels only.
#include <algorithm>
#include <cfloat>
#include <cmath>

#include "analysis/causes/channels.h"
#include "analysis/causes/fit.h"
#include "analysis/causes/search.h"
#include "engine/engine.h"
#include "tensor/error.h"

namespace bnscope::causes {

namespace {

// A few ULP: what summing the same terms in another order gives.
constexpr std::uint64_t kFewUlp = 64;

// The problem with its data in the other layout (transposed, the format attr flipped), and its
// outputs mapped back; nullopt when the op has no layout attr.
std::optional<std::vector<OutputTensor>> run_other_layout(const Search& s, const Scope& sc) {
  const OpSpec& op = s.op();
  if (!op.has_attr("data_format")) return std::nullopt;
  auto xi = sc.problem.inputs.find(std::string(op.data_input()));
  if (xi == sc.problem.inputs.end() || xi->second.rank() < 3) return std::nullopt;
  const Shape declared = xi->second.shape();
  const bool last = s.channels_last();
  Problem p = sc.problem;
  p.attrs["data_format"] =
      std::string(data_format_name(data_format_for(!last, static_cast<int>(declared.size()))));
  for (auto& [name, t] : p.inputs)
    if (t.shape() == declared) t = last ? to_channels_first(t) : to_channels_last(t);
  try {
    std::vector<OutputTensor> outs = run_problem(p, "cpu", s.ctx()).outputs;
    const Shape other = channel_axis_moved(declared, last);
    for (OutputTensor& o : outs)
      if (o.defined && o.tensor.shape() == other)
        o.tensor = last ? to_channels_last(o.tensor) : to_channels_first(o.tensor);
    return outs;
  } catch (const Error& e) {
    if (e.code() == ErrorCode::Cancelled) throw;
    return std::nullopt;
  }
}

std::string list_channels(const std::vector<std::int64_t>& ch) {
  std::string s;
  for (std::size_t i = 0; i < ch.size() && i < 8; ++i) s += (i ? ", " : "") + std::to_string(ch[i]);
  if (ch.size() > 8) s += ", ...";
  return s;
}

}  // namespace

std::optional<Cause> detect_reduction_order(const Search& s) {
  const Comparison& before = s.before();
  std::uint64_t worst_ulp = 0;
  const OutputDiff* data = nullptr;
  for (const OutputDiff& o : before.outputs) {
    if (!o.compared) continue;
    if (o.nan_mismatches || o.max_ulp > kFewUlp) return std::nullopt;
    worst_ulp = std::max(worst_ulp, o.max_ulp);
    if (!data || o.count > data->count) data = &o;
  }
  if (!data) return std::nullopt;
  // Within the dtype's own tolerance on the whole problem.
  const Comparison at_default =
      compare_results("expected", s.whole().expected, s.candidate_backend(), s.whole().candidate,
                      DiffOptions{.worst_k = 0});
  if (!at_default.passed) return std::nullopt;
  // Spread evenly: most channels carry some of it.
  std::int64_t touched = 0;
  for (const ChannelError& c : data->channels) touched += c.max_abs > 0;
  const auto channels = static_cast<std::int64_t>(data->channels.size());
  if (channels > 1 && touched * 2 < channels) return std::nullopt;
  // The same on both layouts: the cpu backend in the other layout agrees as well.
  std::string layouts = "a cpu re-run in the other layout is not available for this op";
  if (auto other = run_other_layout(s, s.sub())) {
    const Comparison c =
        compare_results("expected", s.sub().expected, "cpu", *other, DiffOptions{.worst_k = 0});
    if (!c.passed) return std::nullopt;
    layouts = "the cpu backend in the other layout agrees within the same tolerance";
  }
  Cause cause;
  cause.code = "reduction-order";
  cause.title = "the outputs agree up to summation order: at most " + std::to_string(worst_ulp) +
                " ULP, spread over " + std::to_string(touched) + " of " + std::to_string(channels) +
                " channels, within " + std::string(dtype_name(s.t())) +
                "'s tolerance (not a failure)";
  cause.explanation = "every output passes the dtype's default tolerance; " + layouts;
  cause.before = before.worst_tolerance_ratio();
  cause.after = at_default.worst_tolerance_ratio();
  for (const OutputDiff& o : before.outputs)
    if (o.compared) cause.max_abs_before = std::max(cause.max_abs_before, o.max_abs);
  cause.max_abs_after = cause.max_abs_before;
  cause.resolves = true;
  cause.benign = true;
  cause.candidate = s.candidate_backend();
  cause.confidence = Confidence::Medium;
  cause.suggestion = "compare at the dtype's default tolerance (no atol/rtol of your own)";
  return cause;
}

std::optional<Cause> detect_few_channels(const Search& s) {
  const Scope& w = s.whole();
  const std::int64_t c = w.view.channels;
  if (c < 2) return std::nullopt;
  std::vector<bool> failing(static_cast<std::size_t>(c), false);
  for (const OutputDiff& o : s.before().outputs)
    for (const ChannelError& e : o.channels)
      if (e.mismatches > 0 && e.channel >= 0 && e.channel < c)
        failing[static_cast<std::size_t>(e.channel)] = true;
  std::vector<std::int64_t> bad, good;
  for (std::int64_t i = 0; i < c; ++i)
    (failing[static_cast<std::size_t>(i)] ? bad : good).push_back(i);
  if (bad.empty() || static_cast<std::int64_t>(bad.size()) * 4 > c) return std::nullopt;
  // What those channels' inputs hold.
  const OpSpec& op = s.op();
  std::vector<std::string> reasons;
  for (std::int64_t ch : bad) {
    std::string why;
    for (std::string_view in : {op.data_input(), op.gradient_input()}) {
      auto it = w.problem.inputs.find(std::string(in));
      if (in.empty() || it == w.problem.inputs.end()) continue;
      const std::vector<double> v = channel_sample(it->second, w.view, ch);
      if (std::any_of(v.begin(), v.end(), [](double d) { return !std::isfinite(d); }))
        why = std::string(in) + " holds NaN/Inf";
      else if (in == op.data_input() && !v.empty() &&
               std::all_of(v.begin(), v.end(), [&](double d) { return d == v.front(); }))
        why = "x is constant (zero variance)";
    }
    auto var = w.problem.inputs.find(std::string(op.variance_input));
    if (why.empty() && var != w.problem.inputs.end() && var->second.numel() == c &&
        var->second.get(ch) == 0)
      why = std::string(op.variance_input) + " is 0";
    auto g = w.problem.inputs.find(std::string(op.scale_input));
    if (why.empty() && g != w.problem.inputs.end() && g->second.numel() == c) {
      const double gv = std::fabs(g->second.get(ch));
      if (gv > 0 && gv < FLT_MIN) why = "the scale is denormal";
    }
    if (!why.empty()) reasons.push_back("channel " + std::to_string(ch) + ": " + why);
  }
  Cause cause;
  cause.code = "few-channels";
  cause.channels = bad;
  cause.title = "only channel" + std::string(bad.size() == 1 ? " " : "s ") + list_channels(bad) +
                " (" + std::to_string(bad.size()) + " of " + std::to_string(c) + ") differ";
  if (!reasons.empty()) {
    cause.title += ": ";
    for (std::size_t i = 0; i < reasons.size() && i < 4; ++i)
      cause.title += (i ? "; " : "") + reasons[i];
  }
  cause.explanation = "every other channel agrees (error ratio after leaving these out)";
  cause.before = s.before().worst_tolerance_ratio();
  const Comparison rest = compare_results(
      "expected", outputs_on_channels(w.expected, w.view, s.channels_last(), good), "rest",
      outputs_on_channels(w.candidate, w.view, s.channels_last(), good), s.options());
  cause.after = rest.worst_tolerance_ratio();
  for (const OutputDiff& o : s.before().outputs)
    if (o.compared) cause.max_abs_before = std::max(cause.max_abs_before, o.max_abs);
  for (const OutputDiff& o : rest.outputs)
    if (o.compared) cause.max_abs_after = std::max(cause.max_abs_after, o.max_abs);
  cause.resolves = false;
  cause.candidate = s.candidate_backend();
  cause.confidence = reasons.empty() ? Confidence::Medium : Confidence::High;
  cause.suggestion = "inspect the inputs of channel" + std::string(bad.size() == 1 ? " " : "s ") +
                     list_channels(bad);
  return cause;
}

}  // namespace bnscope::causes
