#include "analysis/pipeline.h"

#include <algorithm>
#include <filesystem>

#include "engine/engine.h"
#include "engine/output_pool.h"
#include "io/file_stamp.h"
#include "ops/outputs.h"
#include "tensor/error.h"

namespace bnscope {

namespace {

bool listed(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// The backends in the order they run: the reference first when it is a backend, then the
// others as requested, each once.
std::vector<std::string> run_order(const PipelineRequest& request, const std::string& reference,
                                   bool reference_is_backend) {
  std::vector<std::string> order;
  if (reference_is_backend) order.push_back(reference);
  for (const std::string& b : request.backends)
    if (!listed(order, b)) order.push_back(b);
  return order;
}

// Progress of run k of n as a share of the whole request.
RunContext share_of(const RunContext& ctx, std::size_t k, std::size_t n) {
  RunContext sub = ctx;
  if (ctx.progress)
    sub.progress = [&ctx, k, n](double f) {
      ctx.progress((static_cast<double>(k) + f) / static_cast<double>(n));
    };
  return sub;
}

bool same_note(const Note& a, const Note& b) {
  return a.kind == b.kind && a.code == b.code && a.message == b.message && a.subject == b.subject &&
         a.channel == b.channel;
}

// The prepared problem's notes, then what each run added after them, each once.
std::vector<Note> gather_notes(const Prepared& prepared, const std::vector<Result>& runs) {
  std::vector<Note> notes = prepared.notes;
  for (const Result& r : runs)
    for (std::size_t i = std::min(prepared.notes.size(), r.notes.size()); i < r.notes.size(); ++i)
      if (std::none_of(notes.begin(), notes.end(),
                       [&](const Note& n) { return same_note(n, r.notes[i]); }))
        notes.push_back(r.notes[i]);
  return notes;
}

// A directory or archive of saved outputs must hold every output TensorFlow writes; one .npy
// names its single output on purpose.
void check_missing(const PipelineRequest& request, const Prepared& prepared,
                   const std::vector<OutputTensor>& expected) {
  if (request.allow_missing) return;
  if (std::filesystem::path(request.against).extension() == ".npy") return;
  std::string missing;
  int count = 0;
  for (const std::string& name : written_outputs(prepared)) {
    const bool found = std::any_of(expected.begin(), expected.end(),
                                   [&](const OutputTensor& e) { return e.name == name; });
    if (!found) missing += (count++ ? ", " : "") + name;
  }
  if (count)
    fail(ErrorParts{Option::Against,
                    request.against,
                    (count == 1 ? "output " : "outputs ") + missing +
                        (count == 1 ? " is missing" : " are missing"),
                    {},
                    Option::AllowMissing});
}

// Saved outputs with another element count cannot be of this problem: bad input, not a
// disagreement. (The same count in another shape is compared: a layout mix-up is a finding.)
void check_sizes(const PipelineRequest& request, const Prepared& prepared,
                 const std::vector<OutputTensor>& expected) {
  for (const OutputTensor& e : expected) {
    const std::optional<Shape> want = output_shape(prepared, e.name);
    if (!want || !e.defined || num_elements(*want) == e.tensor.numel()) continue;
    fail(ErrorParts{Option::Against, request.against,
                    e.name + " has shape " + shape_str(e.tensor.shape()),
                    shape_str(*want) + " (the op's output for these inputs)"});
  }
}

// The kernel a run says it ran (its code-path note's last part: "oneDNN", "Eigen"), else its
// backend's name.
std::string kernel_path(const Result& r) {
  for (const Note& n : r.notes)
    if (n.code == "code-path") {
      const std::size_t at = n.message.rfind(", ");
      return at == std::string::npos ? n.message : n.message.substr(at + 2);
    }
  return r.backend;
}

// Comparisons and causes for runs already made.
void compare_and_explain(const Problem& problem, PipelineResult& out, const DiffOptions& options,
                         bool find, const RunContext& ctx, const Prepared* prepared) {
  out.diff = {};
  out.causes.clear();
  out.no_cause_found.clear();
  out.has_diff = !out.reference_is_backend || out.runs.size() > 1;
  if (!out.has_diff) return;
  for (const Result* r : out.candidates())
    out.diff.comparisons.push_back(
        compare_results(out.reference, out.expected, r->backend, r->outputs, options, &out.view));
  if (!find) return;
  for (const Comparison& c : out.diff.comparisons) {
    if (c.passed) continue;
    ctx.check_cancel();
    std::vector<Cause> found = find_causes(problem, *out.run(c.candidate), out.expected, options,
                                           RunContext{ctx.cancel, {}, ctx.threads}, &c, prepared);
    if (found.empty() || found.front().pattern_only) out.no_cause_found.push_back(c.candidate);
    for (Cause& cause : found) {
      // Two real kernels that differ by summation order only: which two.
      const Result* ref = out.reference_is_backend ? out.run(out.reference) : nullptr;
      if (cause.code == "reduction-order" && ref)
        cause.title = "reduction order (" + kernel_path(*out.run(c.candidate)) + " vs " +
                      kernel_path(*ref) + "): " + cause.title;
      out.causes.push_back(std::move(cause));
    }
  }
}

}  // namespace

const Result* PipelineResult::run(std::string_view backend) const {
  for (const Result& r : runs)
    if (r.backend == backend) return &r;
  return nullptr;
}

std::vector<const Result*> PipelineResult::candidates() const {
  std::vector<const Result*> c;
  for (const Result& r : runs)
    if (!reference_is_backend || r.backend != reference) c.push_back(&r);
  return c;
}

bool same_request(const PipelineRequest& a, const PipelineRequest& b) {
  return a.backends == b.backends && a.reference == b.reference && a.against == b.against &&
         a.allow_missing == b.allow_missing && a.diff == b.diff && a.find_causes == b.find_causes;
}

std::string resolve_reference(const PipelineRequest& request) {
  if (!request.against.empty()) return request.against;
  if (!request.reference.empty()) return request.reference;
  if (request.backends.empty()) fail("no backend to run: name at least one");
  if (listed(request.backends, kReferenceBackend)) return kReferenceBackend;
  return request.backends.front();
}

PipelineResult run_pipeline(const Problem& problem, const Prepared& prepared,
                            const PipelineRequest& request, const RunContext& ctx) {
  PipelineResult out;
  out.reference = resolve_reference(request);
  out.reference_is_backend = request.against.empty();
  out.view = prepared.view;
  out.channels_last = prepared.channels_last;
  if (request.backends.empty()) fail("no backend to run: name at least one");

  const std::vector<std::string> order =
      run_order(request, out.reference, out.reference_is_backend);
  const auto made = [&](const std::string& name) {
    return std::find_if(request.made.begin(), request.made.end(),
                        [&](const Result& m) { return m.backend == name; });
  };
  output_pool().keep_fitting(prepared);
  std::vector<Backend*> backends;
  for (const std::string& b : order)
    backends.push_back(made(b) != request.made.end() ? nullptr : &backend_or_throw(b));
  if (!out.reference_is_backend) {
    // Stamped before the read: a file changed while it is read differs from its stamp later.
    out.against_stamp = file_stamp(request.against);
    const bool unchanged = !request.saved.empty() && !out.against_stamp.empty() &&
                           request.saved_stamp == out.against_stamp;
    out.expected = unchanged ? request.saved : load_expected_outputs(request.against, *prepared.op);
    check_missing(request, prepared, out.expected);
    check_sizes(request, prepared, out.expected);
  }

  for (std::size_t k = 0; k < backends.size(); ++k) {
    ctx.check_cancel();
    if (const auto before = made(order[k]); before != request.made.end()) {
      out.runs.push_back(*before);
      continue;
    }
    // An empty problem's result relies on zero-filled fresh buffers.
    Result r = prepared.empty() ? Result{} : output_pool().take();
    run_prepared_into(prepared, *backends[k], r, share_of(ctx, k, backends.size()));
    out.runs.push_back(std::move(r));
  }
  if (out.reference_is_backend) out.expected = out.runs.front().outputs;
  out.notes = gather_notes(prepared, out.runs);
  compare_and_explain(problem, out, request.diff, request.find_causes, ctx, &prepared);
  return out;
}

PipelineResult run_pipeline(const Problem& problem, const PipelineRequest& request,
                            const RunContext& ctx) {
  return run_pipeline(problem, prepare(problem), request, ctx);
}

PipelineResult recompare(const Problem& problem, const PipelineResult& previous,
                         const DiffOptions& options, bool find_causes, const RunContext& ctx) {
  PipelineResult out = previous;
  compare_and_explain(problem, out, options, find_causes, ctx, nullptr);
  return out;
}

}  // namespace bnscope
