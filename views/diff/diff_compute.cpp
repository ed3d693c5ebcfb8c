#include "diff/diff_compute.h"

#include <cmath>

#include "engine.h"
#include "ops/prepared.h"
#include "tensor/error.h"
#include "tensor_axes.h"

namespace bnscope {

namespace {

bool cancelled(const std::atomic<bool>* cancel) {
  return cancel && cancel->load(std::memory_order_relaxed);
}

// Comparisons and causes for outputs already computed.
void compare_all(DiffOutcome& out, const Prepared& prepared, const std::atomic<bool>* cancel) {
  const DiffOptions& options = out.request.options;
  out.report = {};
  out.causes.clear();
  out.cause_for.clear();
  for (const Result& r : out.candidates)
    out.report.comparisons.push_back(compare_results(out.reference_name, out.reference, r.backend,
                                                     r.outputs, options, &prepared.view));
  if (!out.request.find_causes) return;
  for (const Comparison& c : out.report.comparisons) {
    if (c.passed) continue;
    if (cancelled(cancel)) {
      out.cancelled = true;
      return;
    }
    for (Cause& cause : find_causes(out.request.problem, c.candidate, out.reference, options)) {
      out.causes.push_back(std::move(cause));
      out.cause_for.push_back(c.candidate);
    }
  }
}

}  // namespace

std::shared_ptr<const DiffOutcome> compute_diff(const DiffRequest& request,
                                                const std::atomic<bool>* cancel) {
  auto out = std::make_shared<DiffOutcome>();
  out->request = request;
  try {
    const Prepared prepared = prepare(request.problem);
    out->channels_last = prepared.channels_last;
    if (request.candidates.empty())
      throw Error(ErrorCode::InvalidArgument, "diff: pick at least one backend to compare");
    RunContext ctx;
    ctx.cancel = cancel;
    const auto run_once = [&](const std::string& backend) {
      for (const Result& r : request.runs)
        if (r.backend == backend) return r;
      return run_prepared(prepared, backend_or_throw(backend), ctx);
    };
    if (!request.reference_file.empty()) {
      out->reference = load_expected_outputs(request.reference_file, *prepared.op);
      out->reference_name = request.reference_file;
    } else {
      out->reference = run_once(request.reference).outputs;
      out->reference_name = request.reference;
    }
    for (const std::string& b : request.candidates) out->candidates.push_back(run_once(b));
    compare_all(*out, prepared, cancel);
  } catch (const Error& e) {
    if (cancelled(cancel))
      out->cancelled = true;
    else
      out->error = e.what();
  } catch (const std::exception& e) {
    out->error = e.what();
  }
  return out;
}

std::shared_ptr<const DiffOutcome> recompare(const DiffOutcome& previous,
                                             const DiffOptions& options,
                                             const std::atomic<bool>* cancel) {
  auto out = std::make_shared<DiffOutcome>(previous);
  out->request.options = options;
  out->cancelled = false;
  if (!previous.error.empty()) return out;
  try {
    compare_all(*out, prepare(out->request.problem), cancel);
  } catch (const std::exception& e) {
    out->error = e.what();
  }
  return out;
}

Tensor error_tensor(const OutputTensor& reference, const OutputTensor& candidate) {
  if (reference.tensor.shape() != candidate.tensor.shape()) return {};
  const std::vector<double> a = reference.tensor.to_doubles();
  const std::vector<double> b = candidate.tensor.to_doubles();
  std::vector<double> e(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    const bool na = std::isnan(a[i]), nb = std::isnan(b[i]);
    e[i] = na && nb ? 0.0 : na != nb ? std::nan("") : std::fabs(a[i] - b[i]);
  }
  return Tensor::from_doubles(DType::F64, reference.tensor.shape(), e);
}

ElementPlace element_place(const Shape& shape, const std::vector<std::int64_t>& coords,
                           bool channels_last) {
  ElementPlace p;
  if (shape.empty() || coords.size() != shape.size()) return p;
  const AxisRoles r = axis_roles(shape.size(), channels_last);
  if (r.batch) p.n = coords[*r.batch];
  p.c = coords[*r.channel];
  if (r.spatial.empty()) return p;
  // The rows fold every spatial axis but the last, row-major, as tensor_dims() counts them.
  p.w = coords[r.spatial.back()];
  for (std::size_t k = 0; k + 1 < r.spatial.size(); ++k)
    p.h = p.h * shape[r.spatial[k]] + coords[r.spatial[k]];
  return p;
}

}  // namespace bnscope
