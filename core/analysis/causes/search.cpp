#include "analysis/causes/search.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "analysis/causes/catalog.h"
#include "analysis/causes/channels.h"
#include "analysis/half_sums.h"
#include "engine/engine.h"
#include "tensor/error.h"

namespace bnscope {

namespace causes {

namespace {

// Channels looked at first: the worst ones of the candidate's comparison, and some spread evenly.
constexpr std::int64_t kSubsampleWorst = 4;
constexpr std::int64_t kSubsampleSpread = 4;

DiffOptions quick(const DiffOptions& o) {
  DiffOptions q = o;
  q.worst_k = 0;
  return q;
}

std::vector<std::int64_t> pick_channels(const Comparison& before, std::int64_t c) {
  if (c <= kSubsampleWorst + kSubsampleSpread) return {};
  std::vector<double> badness(static_cast<std::size_t>(c), 0);
  for (const OutputDiff& o : before.outputs)
    for (const ChannelError& e : o.channels)
      if (e.channel >= 0 && e.channel < c)
        badness[static_cast<std::size_t>(e.channel)] +=
            static_cast<double>(e.mismatches) / std::max<std::int64_t>(e.count, 1);
  std::vector<std::int64_t> order(static_cast<std::size_t>(c));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
    return badness[static_cast<std::size_t>(a)] > badness[static_cast<std::size_t>(b)];
  });
  std::vector<std::int64_t> pick(order.begin(), order.begin() + kSubsampleWorst);
  for (std::int64_t i = 0; i < kSubsampleSpread; ++i) {
    const std::int64_t ch = (2 * i + 1) * c / (2 * kSubsampleSpread);
    if (std::find(pick.begin(), pick.end(), ch) == pick.end()) pick.push_back(ch);
  }
  std::sort(pick.begin(), pick.end());
  return pick;
}

// Steps measured without a re-run: a gradient scale and a channel order map the candidate's
// outputs; half accumulation recomputes them from the scope's problem.
bool output_only(const std::vector<FixStep>& steps) {
  return std::all_of(steps.begin(), steps.end(), [](const FixStep& s) {
    return s.code == "gradient-scale" || s.code == "channels-permuted" ||
           s.code == "half-accumulation";
  });
}

// The steps whose rows change the problem: one that names how the reference summed (half
// accumulation) leaves nothing to apply, and beside a fix leaves that fix as the problem's part.
std::vector<FixStep> applicable(const std::vector<FixStep>& steps) {
  std::vector<FixStep> out;
  for (const FixStep& s : steps)
    if (const CauseSpec* spec = find_cause_spec(s.code); spec && spec->apply) out.push_back(s);
  return out;
}

Confidence confidence_of(bool resolves, bool tenfold) {
  return resolves ? Confidence::High : tenfold ? Confidence::Medium : Confidence::Low;
}

}  // namespace

Trial make_trial(std::string code, std::string title, std::string evidence, std::string suggestion,
                 FixStep step) {
  Trial t;
  step.code = code;
  t.code = std::move(code);
  t.steps = {std::move(step)};
  t.title = std::move(title);
  t.evidence = std::move(evidence);
  t.suggestion = std::move(suggestion);
  return t;
}

std::string kernel_title(const Trial& t) {
  return t.in_kernel.empty() ? "the kernel behaves as if " + t.title : t.in_kernel;
}

Trial combine(const Trial& a, const Trial& b) {
  Trial t = b;
  t.code = a.code + "+" + b.code;
  t.steps = a.steps;
  t.steps.insert(t.steps.end(), b.steps.begin(), b.steps.end());
  t.title = a.title + "; and " + b.title;
  t.evidence = a.evidence + "; " + b.evidence;
  t.suggestion = a.suggestion + "; " + b.suggestion;
  t.in_kernel = kernel_title(a) + "; and " + kernel_title(b);
  t.fitted_name = a.fitted_name.empty() ? b.fitted_name : a.fitted_name;
  t.fitted = a.fitted_name.empty() ? b.fitted : a.fitted;
  t.whole_only = a.whole_only || b.whole_only;
  if (a.after_run && b.after_run)
    t.after_run = [fa = a.after_run, fb = b.after_run](std::vector<OutputTensor>& o,
                                                       const Scope& s) { fa(o, s), fb(o, s); };
  else
    t.after_run = a.after_run ? a.after_run : b.after_run;
  t.recomputes = false;
  if (a.instead_of_run && b.instead_of_run) {
    t.instead_of_run = [fa = a.instead_of_run, fb = b.instead_of_run](
                           std::vector<OutputTensor>& o, const Scope& s) { fa(o, s), fb(o, s); };
  } else if (a.recomputes != b.recomputes && !(a.recomputes ? b : a).instead_of_run) {
    // One changes the problem, the other recomputes the outputs from the changed problem.
    t.instead_of_run = a.recomputes ? a.instead_of_run : b.instead_of_run;
    t.recomputes = true;
  } else {
    t.instead_of_run = {};
  }
  return t;
}

Search::Search(const Problem& problem, const OpSpec& op, const Result& candidate,
               const std::vector<OutputTensor>& expected, const DiffOptions& options,
               const Comparison& before, const RunContext& ctx, const Prepared* prepared)
    : op_(op),
      options_(quick(options)),
      before_(before),
      ctx_{ctx.cancel, {}, ctx.threads},
      candidate_backend_(candidate.backend) {
  Backend* cpu = BackendRegistry::instance().find("cpu");
  rerun_backend_ = cpu && cpu->unavailable_reason().empty() ? "cpu" : candidate.backend;
  channels_last_ = declared_channels_last(problem, op);
  const std::string x(op.data_input());
  t_ = problem.dtype             ? *problem.dtype
       : problem.inputs.count(x) ? problem.inputs.at(x).dtype()
                                 : DType::F32;
  whole_.problem = problem;
  whole_.expected = expected;
  whole_.candidate = candidate.outputs;
  whole_.prepared = prepared;
  auto xi = problem.inputs.find(x);
  if (xi != problem.inputs.end() && xi->second.rank() >= 2)
    whole_.view = channel_view(xi->second.shape(), channels_last_);
  const std::vector<std::int64_t> pick = pick_channels(before_, whole_.view.channels);
  sub_ = pick.empty() ? whole_ : on_channels(pick);
  candidate_sub_score_ = score_outputs(sub_.candidate, sub_);
}

Scope Search::on_channels(const std::vector<std::int64_t>& channels, bool with_candidate) const {
  Scope s;
  s.channels = channels;
  s.problem = problem_on_channels(whole_.problem, whole_.view, channels_last_, channels);
  s.expected = outputs_on_channels(whole_.expected, whole_.view, channels_last_, channels);
  if (with_candidate)
    s.candidate = outputs_on_channels(whole_.candidate, whole_.view, channels_last_, channels);
  s.view = channel_view(s.problem.inputs.at(std::string(op_.data_input())).shape(), channels_last_);
  return s;
}

Search Search::mirrored() const {
  Result reference;
  reference.op = whole_.problem.op;
  reference.backend = rerun_backend_;
  reference.outputs = whole_.expected;
  Search m(whole_.problem, op_, reference, whole_.candidate, options_, before_, ctx_,
           whole_.prepared);
  m.kernel_of_ = candidate_backend_;
  return m;
}

std::optional<std::vector<OutputTensor>> Search::outputs(const Trial& t, const Scope& s) const {
  ctx_.check_cancel();
  std::vector<OutputTensor> outs;
  if (t.instead_of_run && output_only(t.steps)) {
    outs = s.candidate;
    try {
      t.instead_of_run(outs, s);
    } catch (const Error& e) {
      if (e.code() == ErrorCode::Cancelled) throw;
      return std::nullopt;  // a recomputation that does not apply here: no evidence either way
    }
    return outs;
  }
  if (t.instead_of_run && t.recomputes) {
    std::vector<FixStep> changes;
    for (const FixStep& step : t.steps)
      if (!output_only({step})) changes.push_back(step);
    Scope changed = s;  // the tensors are shared until a change writes one
    try {
      apply_steps(changed.problem, op_, changes, s.channels);
      outs = s.candidate;
      t.instead_of_run(outs, changed);
    } catch (const Error& e) {
      if (e.code() == ErrorCode::Cancelled) throw;
      return std::nullopt;
    }
    return outs;
  }
  try {
    Problem p = s.problem;
    apply_steps(p, op_, t.steps, s.channels);
    outs = run_prepared(prepare(p, s.prepared), backend_or_throw(rerun_backend_), ctx_).outputs;
  } catch (const Error& e) {
    if (e.code() == ErrorCode::Cancelled) throw;
    return std::nullopt;  // the variant does not validate or run here: no evidence either way
  }
  if (t.after_run) t.after_run(outs, s);
  return outs;
}

const Score& Search::cpu_as_is() const {
  if (!cpu_as_is_) {
    if (rerun_backend_ == candidate_backend_)
      cpu_as_is_ = candidate_sub_score_;
    else
      cpu_as_is_ = score(Trial{}, sub_);
  }
  return *cpu_as_is_;
}

namespace {

struct Tried {
  Trial trial;
  Score score;
};

// Every distinct detector of the catalog, in catalog order.
std::vector<Detector> detectors() {
  std::vector<Detector> out;
  for (const CauseSpec& c : cause_catalog())
    if (c.detect && std::find(out.begin(), out.end(), c.detect) == out.end())
      out.push_back(c.detect);
  return out;
}

bool mentions(const std::string& codes, const std::string& code) {
  std::size_t start = 0;
  while (start <= codes.size()) {
    const std::size_t end = std::min(codes.find('+', start), codes.size());
    if (codes.compare(start, end - start, code) == 0) return true;
    start = end + 1;
  }
  return false;
}

bool tenfold(const Score& after, double before) {
  return after.ran && after.ratio < before && after.ratio * 10 <= before;
}

// Stops at the first trial that passes on the subsample: the search is bounded, and the catalog
// lists the specific causes before the general ones.
std::vector<Tried> try_all(const Search& s, const Trial& base) {
  std::vector<Tried> out;
  for (Detector d : detectors()) {
    if (!out.empty() && out.back().score.passed) break;
    for (Trial& t : d(s, base)) {
      bool repeat = false;
      for (const FixStep& step : t.steps)
        repeat = repeat || (!base.code.empty() && mentions(base.code, step.code));
      if (repeat) continue;
      Trial tried = base.code.empty() ? std::move(t) : combine(base, t);
      const Score sc = s.score(tried);
      out.push_back({std::move(tried), sc});
      if (sc.passed) break;
    }
  }
  return out;
}

double before_on(const Search& s, const Trial& t) {
  return t.whole_only ? s.before().worst_tolerance_ratio() : s.candidate_on_sub().ratio;
}

// A trial explains something when it passes or brings the error down tenfold, both from the
// candidate's and, for another backend, from the cpu backend's run of the problem as it is.
bool counts(const Search& s, const Tried& t) {
  if (!t.score.passed && !tenfold(t.score, before_on(s, t.trial))) return false;
  if (t.trial.whole_only || s.candidate_backend() == "cpu") return true;
  const Score& as_is = s.cpu_as_is();
  return t.score.passed ? !as_is.passed : tenfold(t.score, as_is.ratio);
}

// Replacing the statistics by the batch's explains any statistics mistake at once: among causes
// that resolve, a more specific one ranks first.
bool generic(const Cause& c) {
  return c.code.find("moving-statistics") != std::string::npos;
}

}  // namespace

namespace {

// The trials that explain something, best first, and every trial made (for the pattern's list).
std::vector<Tried> fit(const Search& s, std::vector<Tried>& tried) {
  std::vector<Tried> found;
  tried = try_all(s, Trial{});
  for (const Tried& t : tried)
    if (counts(s, t)) found.push_back(t);
  if (std::none_of(found.begin(), found.end(), [](const Tried& t) { return t.score.passed; })) {
    // Two causes at once: on top of the trials that brought the error down most.
    std::vector<const Tried*> beam;
    for (const Tried& t : tried)
      if (t.score.ran && t.score.sq < 0.5 * s.candidate_on_sub().sq) beam.push_back(&t);
    std::sort(beam.begin(), beam.end(),
              [](const Tried* a, const Tried* b) { return a->score.sq < b->score.sq; });
    if (beam.size() > 3) beam.resize(3);
    std::vector<Tried> pairs;
    for (const Tried* b : beam)
      for (Tried& t : try_all(s, b->trial))
        if (counts(s, t)) pairs.push_back(std::move(t));
    for (Tried& t : pairs) found.push_back(std::move(t));
  }
  std::stable_sort(found.begin(), found.end(), [](const Tried& a, const Tried& b) {
    if (a.score.passed != b.score.passed) return a.score.passed;
    const bool ga = a.trial.code.find("moving-statistics") != std::string::npos;
    const bool gb = b.trial.code.find("moving-statistics") != std::string::npos;
    if (a.score.passed && ga != gb) return !ga;
    return a.score.sq < b.score.sq;
  });
  if (found.size() > 4) found.resize(4);
  return found;
}

// A found trial as a cause, once confirmed on the whole problem; nullopt when it does not hold
// there. In a mirrored search it names the candidate kernel's mistake, which no change to the
// problem fixes.
std::optional<Cause> confirm(const Search& s, const Tried& t, double before, double before_abs) {
  const Score whole =
      t.trial.whole_only || s.sub().whole() ? t.score : s.score_on_all_channels(t.trial);
  const bool ten = tenfold(whole, before);
  if (!whole.passed && !ten) return std::nullopt;
  Cause c;
  c.code = t.trial.code;
  c.title = t.trial.title;
  c.explanation = t.trial.evidence;
  c.before = before;
  c.after = whole.ratio;
  c.max_abs_before = before_abs;
  c.max_abs_after = whole.max_abs;
  c.resolves = whole.passed;
  c.candidate = s.candidate_backend();
  c.confidence = confidence_of(whole.passed, ten);
  c.fitted_name = t.trial.fitted_name;
  c.fitted = t.trial.fitted;
  c.suggestion = t.trial.suggestion;
  c.fix = applicable(t.trial.steps);
  c.partial_fix = !c.fix.empty() && c.fix.size() < t.trial.steps.size();
  if (!s.kernel_of().empty()) {
    c.in_kernel = true;
    c.candidate = s.kernel_of();
    c.title = kernel_title(t.trial);
    c.explanation =
        "the cpu backend agrees with the reference on this problem; with the same "
        "mistake made it reproduces " +
        s.kernel_of() + "'s outputs";
    c.suggestion = "correct " + s.kernel_of() + "'s kernel; the problem itself is right";
    c.fix.clear();
    c.partial_fix = false;
  }
  return c;
}

std::vector<Cause> causes_from(const Search& s, const std::vector<Tried>& found) {
  std::vector<Cause> causes;
  const double before = s.before().worst_tolerance_ratio();
  double before_abs = 0;
  for (const OutputDiff& o : s.before().outputs)
    if (o.compared) before_abs = std::max(before_abs, o.nan_mismatches ? INFINITY : o.max_abs);
  for (const Tried& t : found)
    if (auto c = confirm(s, t, before, before_abs)) {
      causes.push_back(std::move(*c));
      if (causes.back().resolves) break;  // the best resolves: the others need no whole re-run
    }
  // A clamped epsilon is the specific form of a fitted one.
  const bool clamped = std::any_of(causes.begin(), causes.end(), [](const Cause& c) {
    return c.code == "epsilon-clamped" && c.resolves;
  });
  if (clamped)
    causes.erase(std::remove_if(causes.begin(), causes.end(),
                                [](const Cause& c) { return c.code == "epsilon-mismatch"; }),
                 causes.end());
  return causes;
}

std::vector<RuledOut> ruled_out_by(const std::vector<Tried>& tried) {
  std::vector<RuledOut> ruled;
  for (const Tried& t : tried) {
    auto it = std::find_if(ruled.begin(), ruled.end(),
                           [&](const RuledOut& r) { return r.code == t.trial.code; });
    const double r = t.score.ran ? t.score.ratio : INFINITY;
    if (it == ruled.end())
      ruled.push_back({t.trial.code, r});
    else
      it->best_ratio = std::min(it->best_ratio, r);
  }
  return ruled;
}

}  // namespace

std::vector<Cause> search_causes(const Search& s) {
  if (auto c = detect_reduction_order(s)) return {*c};

  std::vector<Tried> tried;
  std::vector<Cause> causes;
  // Another backend than the re-runs' that disagrees where cpu on the same problem agrees: no
  // change to the problem explains it, the candidate's kernel does; the mirrored search names
  // the mistake that kernel makes.
  if (s.candidate_backend() != "cpu" && s.kernel_of().empty() && s.cpu_as_is().passed) {
    const Search m = s.mirrored();
    causes = causes_from(m, fit(m, tried));
  } else {
    causes = causes_from(s, fit(s, tried));
  }
  // A few channels are worth naming only when nothing explains them.
  if (std::none_of(causes.begin(), causes.end(), [](const Cause& c) { return c.resolves; }))
    if (auto few = detect_few_channels(s)) causes.push_back(std::move(*few));
  std::stable_sort(causes.begin(), causes.end(), [](const Cause& a, const Cause& b) {
    if (a.resolves != b.resolves) return a.resolves;
    if (a.resolves && generic(a) != generic(b)) return !generic(a);
    return a.after < b.after;
  });
  if (causes.empty()) causes.push_back(describe_pattern(s, ruled_out_by(tried)));
  return causes;
}

}  // namespace causes

std::vector<Cause> find_causes(const Problem& problem, const Result& base,
                               const std::vector<OutputTensor>& expected,
                               const DiffOptions& options, const RunContext& ctx,
                               const Comparison* made, const Prepared* prepared) {
  const OpSpec* op = find_op(problem.op);
  if (!op) fail("unknown op '" + problem.op + "'");
  DiffOptions q = options;
  q.worst_k = 0;
  ChannelView view;
  const std::string x(op->data_input());
  auto xi = problem.inputs.find(x);
  if (xi != problem.inputs.end() && xi->second.rank() >= 2)
    view = channel_view(xi->second.shape(), causes::declared_channels_last(problem, *op));
  const Comparison before = made ? *made
                                 : compare_results("expected", expected, base.backend, base.outputs,
                                                   q, view.channels ? &view : nullptr);
  if (before.passed) return {};
  const causes::Search s(problem, *op, base, expected, options, before, ctx, prepared);
  std::vector<Cause> found = causes::search_causes(s);
  if (!found.empty() && found.front().pattern_only) {
    std::vector<Cause> half;
    add_half_sum_overflow(problem, base, expected, options, half);
    if (!half.empty()) found = std::move(half);
  } else {
    add_half_sum_overflow(problem, base, expected, options, found);
  }
  return found;
}

}  // namespace bnscope
