#include "diff/diff_compute.h"

#include <algorithm>
#include <cmath>

#include "option_words.h"
#include "tensor/error.h"
#include "tensor_axes.h"

namespace bnscope {

namespace {

bool same_options(const DiffOptions& a, const DiffOptions& b) {
  return a.atol == b.atol && a.rtol == b.rtol && a.worst_k == b.worst_k &&
         a.nan_equal == b.nan_equal && a.output_atol == b.output_atol &&
         a.output_rtol == b.output_rtol;
}

const OutputTensor* find_output(const std::vector<OutputTensor>& outs, const std::string& name) {
  for (const OutputTensor& o : outs)
    if (o.name == name) return &o;
  return nullptr;
}

}  // namespace

bool DiffRequest::operator==(const DiffRequest& o) const {
  return reference == o.reference && reference_file == o.reference_file &&
         candidates == o.candidates && same_options(options, o.options) &&
         find_causes == o.find_causes;
}

PipelineRequest pipeline_request(const std::string& backend, const DiffRequest* diff) {
  PipelineRequest r;
  r.find_causes = false;
  if (diff) {
    r.against = diff->reference_file;
    if (r.against.empty()) {
      r.reference = diff->reference;
      r.backends.push_back(diff->reference);
    }
    for (const std::string& c : diff->candidates)
      if (std::find(r.backends.begin(), r.backends.end(), c) == r.backends.end())
        r.backends.push_back(c);
    r.diff = diff->options;
    r.find_causes = diff->find_causes;
  }
  if (std::find(r.backends.begin(), r.backends.end(), backend) == r.backends.end())
    r.backends.push_back(backend);
  if (!diff) r.reference = backend;  // one backend and nothing to compare with
  return r;
}

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

std::optional<std::string> diff_request_problem(const DiffRequest& request) {
  if (request.candidates.empty()) return "diff: pick at least one backend to compare";
  if (request.reference_file.empty() && request.reference.empty())
    return "diff: pick a reference backend or a file of expected outputs";
  return std::nullopt;
}

std::shared_ptr<const DiffOutcome> compute_diff(const Problem& problem, const DiffRequest& request,
                                                const std::atomic<bool>* cancel) {
  auto out = std::make_shared<DiffOutcome>();
  out->request = request;
  out->problem = problem;
  if (auto why = diff_request_problem(request)) {
    out->error = *why;
    return out;
  }
  try {
    PipelineRequest r = pipeline_request(request.candidates.front(), &request);
    RunContext ctx;
    ctx.cancel = cancel;
    out->result = std::make_shared<const PipelineResult>(run_pipeline(problem, r, ctx));
  } catch (const Error& e) {
    out->cancelled = e.code() == ErrorCode::Cancelled;
    if (!out->cancelled) out->error = error_text(e, app_option_words());
  } catch (const std::exception& e) {
    out->error = error_text(e, app_option_words());
  }
  return out;
}

std::shared_ptr<const DiffOutcome> recompare(const DiffOutcome& previous,
                                             const DiffOptions& options,
                                             const std::atomic<bool>* cancel) {
  auto out = std::make_shared<DiffOutcome>(previous);
  out->request.options = options;
  out->cancelled = false;
  if (!previous.result) return out;
  try {
    RunContext ctx;
    ctx.cancel = cancel;
    out->result = std::make_shared<const PipelineResult>(bnscope::recompare(
        previous.problem, *previous.result, options, previous.request.find_causes, ctx));
  } catch (const Error& e) {
    out->cancelled = e.code() == ErrorCode::Cancelled;
    if (!out->cancelled) out->error = error_text(e, app_option_words());
  } catch (const std::exception& e) {
    out->error = error_text(e, app_option_words());
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

Slice2D error_slice(const OutputTensor& reference, const OutputTensor& candidate,
                    bool channels_last, SliceMode mode, std::int64_t a, std::int64_t b) {
  if (reference.tensor.shape() != candidate.tensor.shape()) return {};
  Slice2D e = slice_tensor(reference.tensor, channels_last, mode, a, b);
  const Slice2D c = slice_tensor(candidate.tensor, channels_last, mode, a, b);
  for (std::size_t i = 0; i < e.values.size() && i < c.values.size(); ++i) {
    const double x = e.values[i], y = c.values[i];
    const bool na = std::isnan(x), nb = std::isnan(y);
    e.values[i] = na && nb ? 0.0 : na != nb ? std::nan("") : std::fabs(x - y);
  }
  return e;
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
