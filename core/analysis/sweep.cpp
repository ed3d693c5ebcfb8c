#include "analysis/sweep.h"

#include <algorithm>
#include <numeric>

#include "engine/engine.h"
#include "io/npz.h"
#include "ops/problem_io.h"
#include "tensor/error.h"

namespace bnscope {

namespace {

bool records_outputs(const CaptureLayer& l) {
  for (const auto& [name, unused] : l.shapes)
    if (name.starts_with(kExpectedPrefix)) return true;
  return false;
}

std::string dims_text(const std::vector<std::int64_t>& d) {
  return shape_str(Shape(d.begin(), d.end()));
}

// The manifest describes the file; a file that says otherwise was replaced or edited, and
// running it would report on a layer the manifest does not name.
void check_against_manifest(const CaptureLayer& l, const Problem& p) {
  const std::string where = l.file + " does not match the manifest: ";
  if (p.op != l.op) fail(where + "op is " + p.op + " in the file, " + l.op + " in the manifest");
  for (const auto& [name, dims] : l.shapes) {
    if (name.starts_with(kExpectedPrefix)) {
      if (!npz_has_member(l.path, name + ".npy"))
        fail(where + "the manifest lists " + name + " but the file has no such member");
      continue;
    }
    auto it = p.inputs.find(name);
    if (it == p.inputs.end())
      fail(where + "the manifest lists input " + name + " but the file has none");
    const Shape want(dims.begin(), dims.end());
    if (it->second.shape() != want)
      fail(where + name + " is " + shape_str(it->second.shape()) + " in the file, " +
           dims_text(dims) + " in the manifest");
    if (auto d = l.dtypes.find(name);
        d != l.dtypes.end() && d->second != dtype_name(it->second.dtype()))
      fail(where + name + " is " + std::string(dtype_name(it->second.dtype())) + " in the file, " +
           d->second + " in the manifest");
  }
}

void summarize(SweepRow& row) {
  const PipelineResult& r = row.result;
  for (const Comparison& c : r.diff.comparisons) {
    if (!c.passed) row.failing.push_back(c.candidate);
    row.worst_ratio = std::max(row.worst_ratio, c.worst_tolerance_ratio());
    for (const OutputDiff& o : c.outputs) {
      auto it = std::find_if(row.outputs.begin(), row.outputs.end(),
                             [&](const SweepOutput& s) { return s.name == o.name; });
      if (it == row.outputs.end()) {
        if (o.count == 0 && o.compared) continue;
        row.outputs.push_back({o.name});
        it = row.outputs.end() - 1;
      }
      // Outputs with no elements (the unused reserve spaces) say nothing about the layer.
      if (!o.compared || o.count == 0) continue;
      it->compared = true;
      it->max_abs = std::max(it->max_abs, o.max_abs);
      it->max_ulp = std::max(it->max_ulp, o.max_ulp);
      it->passed = it->passed && o.passed;
    }
  }
}

SweepRow sweep_layer(const CaptureLayer& layer, const SweepRequest& request,
                     const std::string& against, const RunContext& ctx) {
  SweepRow row;
  row.layer = layer;
  if (auto it = layer.shapes.find("x"); it != layer.shapes.end()) row.shape = dims_text(it->second);
  if (auto it = layer.dtypes.find("x"); it != layer.dtypes.end()) row.dtype = it->second;
  try {
    const Problem problem = load_problem(layer.path);
    check_against_manifest(layer, problem);
    if (auto it = problem.inputs.find("x"); it != problem.inputs.end()) {
      row.shape = shape_str(it->second.shape());
      row.dtype = std::string(dtype_name(it->second.dtype()));
    }
    PipelineRequest pr;
    pr.backends = request.backends;
    pr.diff = request.diff;
    pr.find_causes = request.find_causes;
    if (against == kAgainstTensorFlow) {
      if (!records_outputs(layer))
        fail(layer.file + ": no recorded TensorFlow outputs (out_ members) to compare with");
      pr.against = layer.path;
      // A layer without gamma or beta records only the gradients TensorFlow computed.
      pr.allow_missing = true;
    } else {
      pr.reference = against;
    }
    row.result = run_pipeline(problem, pr, ctx);
    summarize(row);
  } catch (const Error& e) {
    if (e.code() == ErrorCode::Cancelled) throw;
    row.error = e.what();
  }
  return row;
}

}  // namespace

std::string SweepRow::verdict() const {
  if (broken()) return "BROKEN";
  if (passed()) return "agree";
  std::string s = "DISAGREE (";
  for (std::size_t i = 0; i < failing.size(); ++i) s += (i ? "," : "") + failing[i];
  return s + ")";
}

std::string SweepRow::likely_cause() const {
  if (broken()) return error;
  if (passed()) return {};
  // Causes come best first per candidate; the first one that makes the run pass wins.
  const Cause* best = nullptr;
  for (const Cause& c : result.causes)
    if (!best || (c.resolves && !best->resolves)) best = &c;
  if (best) return best->title + " (" + best->candidate + ")";
  return "no cause found";
}

int SweepResult::agreeing() const {
  return static_cast<int>(
      std::count_if(rows.begin(), rows.end(), [](const SweepRow& r) { return r.passed(); }));
}
int SweepResult::broken() const {
  return static_cast<int>(
      std::count_if(rows.begin(), rows.end(), [](const SweepRow& r) { return r.broken(); }));
}
int SweepResult::disagreeing() const {
  return static_cast<int>(rows.size()) - agreeing() - broken();
}

std::vector<std::size_t> SweepResult::worst_first() const {
  std::vector<std::size_t> order(rows.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const SweepRow& ra = rows[a];
    const SweepRow& rb = rows[b];
    if (ra.broken() != rb.broken()) return ra.broken();
    return ra.worst_ratio > rb.worst_ratio;
  });
  return order;
}

SweepResult run_sweep(const Capture& capture, const SweepRequest& request,
                      const SweepProgress& progress, const RunContext& ctx) {
  SweepResult out;
  out.capture = capture;
  out.backends = request.backends;
  if (out.backends.empty()) out.backends = {kReferenceBackend, "cpu"};
  out.reference = request.against;
  if (out.reference.empty())
    out.reference = std::any_of(capture.layers.begin(), capture.layers.end(), records_outputs)
                        ? kAgainstTensorFlow
                        : kReferenceBackend;
  // Bad flags fail once, before any layer, instead of once per row.
  for (const std::string& b : out.backends) backend_or_throw(b);
  if (out.reference != kAgainstTensorFlow) {
    backend_or_throw(out.reference);
    const bool listed =
        std::find(out.backends.begin(), out.backends.end(), out.reference) != out.backends.end();
    const std::size_t candidates = out.backends.size() - (listed ? 1 : 0);
    if (candidates == 0)
      fail(ErrorParts{Option::Against, out.reference,
                      "the backends to compare list only the reference",
                      "another backend to compare with it"});
  }
  SweepRequest req = request;
  req.backends = out.backends;
  for (std::size_t i = 0; i < capture.layers.size(); ++i) {
    ctx.check_cancel();
    if (progress) progress(i, capture.layers.size(), capture.layers[i].name);
    out.rows.push_back(sweep_layer(capture.layers[i], req, out.reference, ctx));
  }
  if (progress) progress(capture.layers.size(), capture.layers.size(), {});
  return out;
}

}  // namespace bnscope
