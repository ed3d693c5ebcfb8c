#include "analysis/outcome.h"

#include <algorithm>
#include <utility>

namespace bnscope {

namespace {

const OutputTensor* find_output(const std::vector<OutputTensor>& outs, const std::string& name) {
  for (const OutputTensor& o : outs)
    if (o.name == name) return &o;
  return nullptr;
}

void add_once(std::vector<std::string>& list, const std::string& name) {
  if (std::find(list.begin(), list.end(), name) == list.end()) list.push_back(name);
}

// A failed comparison's fields: cancelled, or the error in the caller's words.
void record_failure(DiffOutcome& out, const std::exception& e, const OptionWords& words) {
  const auto* err = dynamic_cast<const Error*>(&e);
  out.cancelled = err && err->code() == ErrorCode::Cancelled;
  if (!out.cancelled) out.error = error_text(e, words);
}

}  // namespace

const DiffReport& DiffOutcome::report() const {
  static const DiffReport none;
  return result ? result->diff : none;
}

const std::vector<Cause>& DiffOutcome::causes() const {
  static const std::vector<Cause> none;
  return result ? result->causes : none;
}

const OutputTensor* DiffOutcome::expected(const std::string& output) const {
  return result ? find_output(result->expected, output) : nullptr;
}

const OutputTensor* DiffOutcome::candidate(const std::string& backend,
                                           const std::string& output) const {
  const Result* r = result ? result->run(backend) : nullptr;
  return r ? find_output(r->outputs, output) : nullptr;
}

std::optional<std::string> comparison_problem(const PipelineRequest& comparison) {
  if (comparison.backends.empty()) return "diff: pick at least one backend to compare";
  if (comparison.against.empty() && comparison.reference.empty())
    return "diff: pick a reference backend or a file of expected outputs";
  return std::nullopt;
}

PipelineRequest with_backend(const std::string& backend, const PipelineRequest* comparison) {
  PipelineRequest r;
  r.find_causes = false;
  if (comparison) {
    r = *comparison;
    r.backends.clear();
    if (r.against.empty()) add_once(r.backends, r.reference);
    for (const std::string& c : comparison->backends) add_once(r.backends, c);
  }
  add_once(r.backends, backend);
  if (!comparison) r.reference = backend;  // one backend and nothing to compare with
  return r;
}

std::shared_ptr<const RunOutcome> readings_of(const RunOutcome& o,
                                              const std::vector<Tensor>& kept) {
  // Per-channel vectors and scalars (scale, reserve spaces) cost nothing to hold beside the next
  // problem; anything larger must be a buffer it keeps.
  constexpr std::size_t kSmall = std::size_t{1} << 20;
  const auto held = [&](const Tensor& t) {
    if (t.storage_holders() == 0 || t.nbytes() <= kSmall) return true;
    return std::any_of(kept.begin(), kept.end(),
                       [&](const Tensor& k) { return k.shares_storage_with(t); });
  };
  auto r = std::make_shared<RunOutcome>();
  r->revision = o.revision;
  r->backend = o.backend;
  r->stats.channels = o.stats.channels;
  for (const InputSummary& in : o.stats.inputs)
    if (held(in.tensor)) r->stats.inputs.push_back(in);
  if (o.prepared && std::all_of(o.prepared->inputs.begin(), o.prepared->inputs.end(), held) &&
      std::all_of(o.prepared->converted_from.begin(), o.prepared->converted_from.end(), held))
    r->prepared = o.prepared;
  return r;
}

std::shared_ptr<const RunOutcome> compute_outcome(const Problem& problem,
                                                  const std::string& backend, const RunContext& ctx,
                                                  std::uint64_t revision,
                                                  const PipelineRequest* comparison,
                                                  const RunOutcome* previous,
                                                  const OptionWords& words) {
  ScanControl scan;
  scan.cancel = ctx.cancel;
  scan.threads = ctx.threads;
  auto out = std::make_shared<RunOutcome>();
  out->problem = problem;
  out->revision = revision;
  out->backend = backend;
  std::shared_ptr<DiffOutcome> diff;
  if (comparison) {
    out->comparison = *comparison;
    diff = std::make_shared<DiffOutcome>();
    diff->request = *comparison;
    diff->problem = problem;
    diff->revision = revision;
    out->diff = diff;
    if (auto why = comparison_problem(*comparison)) {
      diff->error = *why;
      comparison = nullptr;
    }
  }
  // The backend's data output is scanned per channel when the engine asks for its NaN/Inf
  // count, so that one pass over it serves both; the stats below take that scan.
  struct DataScan {
    Tensor tensor;
    ChannelScan scan;
  };
  std::optional<DataScan> data_scan;
  RunContext run_ctx = ctx;
  run_ctx.count_non_finite = [&](const Prepared& p, const Result& r,
                                 const OutputTensor& o) -> std::optional<std::int64_t> {
    if (r.backend != backend || data_output(p, r) != &o) return std::nullopt;
    DataScan d{o.tensor, scan_channels(o.tensor, p.view, scan, true)};
    std::int64_t bad = 0;
    for (std::int64_t n : d.scan.non_finite) bad += n;
    data_scan = std::move(d);
    return bad;
  };
  try {
    out->prepared =
        prepare(problem, previous && previous->prepared ? &*previous->prepared : nullptr);
    std::shared_ptr<const PipelineResult> pipeline;
    if (comparison) {
      try {
        PipelineRequest request = with_backend(backend, comparison);
        // A comparison asked for on results already shown: the backend's run of this very
        // problem stands; only the reference runs.
        if (previous && previous->ok() && !previous->stale && previous->revision == revision &&
            previous->backend == backend)
          request.made.push_back(*previous->result);
        // The same saved outputs as the comparison shown: read again only if the file changed.
        const PipelineResult* before =
            previous && previous->diff ? previous->diff->result.get() : nullptr;
        if (before && !before->reference_is_backend && !request.against.empty() &&
            previous->diff->request.against == request.against) {
          request.saved = before->expected;
          request.saved_stamp = before->against_stamp;
        }
        pipeline = std::make_shared<const PipelineResult>(
            run_pipeline(problem, *out->prepared, request, run_ctx));
        diff->result = pipeline;
      } catch (const Error& e) {
        if (e.code() == ErrorCode::Cancelled) throw;
        diff->error = error_text(e, words);  // the comparison alone failed: run the backend
      }
    }
    if (!pipeline)
      pipeline = std::make_shared<const PipelineResult>(
          run_pipeline(problem, *out->prepared, with_backend(backend, nullptr), run_ctx));
    out->pipeline = pipeline;
    out->result = pipeline->run(backend);
    const OutputTensor* d = data_output(*out->prepared, *out->result);
    const bool scanned = d && data_scan && data_scan->tensor.shares_storage_with(d->tensor) &&
                         data_scan->tensor.shape() == d->tensor.shape();
    out->stats =
        channel_stats(problem, *out->prepared, *out->result, scan,
                      previous ? &previous->stats : nullptr, scanned ? &data_scan->scan : nullptr);
  } catch (const Error& e) {
    out->result = nullptr;
    out->error = error_text(e, words);
    out->cancelled = e.code() == ErrorCode::Cancelled;
  } catch (const std::exception& e) {
    out->result = nullptr;
    out->error = "internal error: " + error_text(e, words);
  }
  if (!out->ok() && !out->cancelled) {
    // The input table still shows what the inputs hold.
    try {
      out->stats.inputs =
          input_summaries(problem, scan, previous ? &previous->stats.inputs : nullptr);
    } catch (const Error& e) {
      out->cancelled = e.code() == ErrorCode::Cancelled;
      if (out->cancelled) out->error = error_text(e, words);
    }
  }
  if (diff && !diff->result && diff->error.empty()) {
    // Validation or the backend failed: the comparison says the same.
    diff->cancelled = out->cancelled;
    diff->error = out->error;
  }
  return out;
}

std::shared_ptr<const DiffOutcome> compute_diff(const Problem& problem,
                                                const PipelineRequest& comparison,
                                                const std::atomic<bool>* cancel,
                                                const OptionWords& words) {
  auto out = std::make_shared<DiffOutcome>();
  out->request = comparison;
  out->problem = problem;
  if (auto why = comparison_problem(comparison)) {
    out->error = *why;
    return out;
  }
  try {
    RunContext ctx;
    ctx.cancel = cancel;
    out->result = std::make_shared<const PipelineResult>(
        run_pipeline(problem, with_backend(comparison.backends.front(), &comparison), ctx));
  } catch (const std::exception& e) {
    record_failure(*out, e, words);
  }
  return out;
}

std::shared_ptr<const DiffOutcome> recompare(const DiffOutcome& previous,
                                             const DiffOptions& options,
                                             const std::atomic<bool>* cancel,
                                             const OptionWords& words) {
  auto out = std::make_shared<DiffOutcome>(previous);
  out->request.diff = options;
  out->cancelled = false;
  if (!previous.result) return out;
  try {
    RunContext ctx;
    ctx.cancel = cancel;
    out->result = std::make_shared<const PipelineResult>(bnscope::recompare(
        previous.problem, *previous.result, options, previous.request.find_causes, ctx));
  } catch (const std::exception& e) {
    record_failure(*out, e, words);
  }
  return out;
}

}  // namespace bnscope
