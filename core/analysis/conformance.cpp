#include "analysis/conformance.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "engine/engine.h"
#include "ops/bn_math.h"
#include "ops/prepared.h"
#include "ops/sample.h"
#include "tensor/error.h"

namespace bnscope {

namespace {

bool is_5d(DataFormat f) {
  return f == DataFormat::NDHWC || f == DataFormat::NCDHW;
}

std::vector<DataFormat> formats_of(const OpSpec& op) {
  std::vector<DataFormat> out;
  if (const AttrSpec* a = op.attr("data_format"))
    for (std::string_view name : a->allowed)
      if (auto f = parse_data_format(name)) out.push_back(*f);
  if (out.empty()) out.push_back(DataFormat::NHWC);
  return out;
}

std::vector<DType> dtypes_of(const OpSpec& op) {
  std::vector<DType> out;
  for (DType t : kAllDTypes)
    if (std::count(op.cpu_types.begin(), op.cpu_types.end(), t) ||
        std::count(op.gpu_types.begin(), op.gpu_types.end(), t))
      out.push_back(t);
  return out;
}

// The shapes where kernels go wrong; logical N,H,W,C, with a depth of 2 for the 5-D layouts.
std::vector<ConformanceShape> shapes_for(bool five_d) {
  auto s = [five_d](std::int64_t n, std::int64_t d, std::int64_t h, std::int64_t w,
                    std::int64_t c) {
    return five_d ? Shape{n, d, h, w, c} : Shape{n, h, w, c};
  };
  return {
      {"odd sizes", s(3, 3, 5, 7, 3)},
      {"C=1", s(2, 2, 3, 5, 1)},
      {"M=1", s(1, 1, 1, 1, 5)},
      {"empty batch", s(0, 2, 3, 4, 2)},
      {"NaN/Inf inputs", s(2, 2, 3, 4, 3), -1, true},
      {"epsilon 0", s(2, 2, 3, 4, 3), 0.0},
      {"epsilon 1e-6, below cuDNN's minimum", s(2, 2, 3, 4, 3), 1e-6},
  };
}

double ratio_of(const OutputDiff& o) {
  return o.compared ? o.tolerance_ratio : 0;
}

}  // namespace

std::string ConformanceVariant::label() const {
  std::string s(op->name);
  if (op->has_attr("data_format")) s += " " + std::string(data_format_name(format));
  if (op->has_modes()) s += " " + std::string(mode_name(training));
  if (op->is_grad && op->has_modes() && training)
    s += " " + std::string(convention_name(convention));
  return s + " " + std::string(dtype_name(dtype));
}

Shape physical_shape_of(const ConformanceCase& c) {
  return physical_shape(c.shape.logical, c.variant.format);
}

std::string ConformanceCase::label() const {
  return variant.label() + ", " + shape.label + " " + shape_str(physical_shape_of(*this));
}

Problem ConformanceCase::build() const {
  SampleSpec spec;
  spec.op = std::string(variant.op->name);
  spec.shape = shape.logical;
  spec.format = variant.format;
  spec.is_training = variant.training;
  spec.dtype = variant.dtype;
  spec.seed = seed;
  spec.convention = variant.convention;
  spec.threads = 1;
  Problem p = random_problem(spec);
  const OpSpec& op = *variant.op;
  if (shape.epsilon >= 0) {
    p.attrs[std::string(op.epsilon_attr())] = shape.epsilon;
    if (op.is_grad) fill_reserve_from_forward(p);  // inv_std reserves follow epsilon
  }
  if (shape.non_finite) {
    // A NaN in the data of the first channel and an Inf in the last one (in the gradient for
    // the grad ops): both must come out where the reference puts them.
    Tensor& x = p.inputs.at(std::string(op.data_input()));
    if (x.numel() > 0) x.set(0, std::numeric_limits<double>::quiet_NaN());
    Tensor& g = op.is_grad ? p.inputs.at(std::string(op.gradient_input())) : x;
    if (g.numel() > 1) g.set(g.numel() - 1, std::numeric_limits<double>::infinity());
  }
  return p;
}

std::vector<ConformanceCase> conformance_cases() {
  std::vector<ConformanceCase> out;
  std::uint64_t seed = 1;
  for (const OpSpec& op : op_catalog())
    for (DataFormat f : formats_of(op))
      for (bool training :
           op.has_modes() ? std::vector<bool>{true, false} : std::vector<bool>{true})
        for (ReserveConvention conv :
             op.is_grad&& op.has_modes() && training
                 ? std::vector<ReserveConvention>{ReserveConvention::Variance,
                                                  ReserveConvention::InvStd}
                 : std::vector<ReserveConvention>{ReserveConvention::Variance})
          for (DType t : dtypes_of(op)) {
            const ConformanceVariant v{&op, f, training, conv, t};
            for (const ConformanceShape& s : shapes_for(is_5d(f))) out.push_back({v, s, seed++});
          }
  return out;
}

std::string_view verdict_name(ConformanceVerdict v) {
  switch (v) {
    case ConformanceVerdict::Pass:
      return "pass";
    case ConformanceVerdict::Fail:
      return "FAIL";
    case ConformanceVerdict::Error:
      return "ERROR";
    case ConformanceVerdict::Unsupported:
      break;
  }
  return "unsupported";
}

int ConformanceResult::count(ConformanceVerdict v) const {
  return static_cast<int>(std::count_if(rows.begin(), rows.end(),
                                        [v](const ConformanceRow& r) { return r.verdict == v; }));
}

std::vector<std::size_t> ConformanceResult::failing_first() const {
  auto rank = [](ConformanceVerdict v) {
    switch (v) {
      case ConformanceVerdict::Error:
        return 0;
      case ConformanceVerdict::Fail:
        return 1;
      case ConformanceVerdict::Pass:
        return 2;
      case ConformanceVerdict::Unsupported:
        break;
    }
    return 3;
  };
  std::vector<std::size_t> idx(rows.size());
  for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
    const int ra = rank(rows[a].verdict), rb = rank(rows[b].verdict);
    if (ra != rb) return ra < rb;
    return ra <= 1 && rows[a].worst_ratio > rows[b].worst_ratio;
  });
  return idx;
}

namespace {

void summarize(const PipelineResult& r, const std::string& backend, ConformanceRow& row) {
  for (const Comparison& c : r.diff.comparisons) {
    if (c.candidate != backend) continue;
    row.verdict = c.passed ? ConformanceVerdict::Pass : ConformanceVerdict::Fail;
    for (const OutputDiff& o : c.outputs) {
      if (!o.compared || o.count == 0) continue;
      row.max_abs = std::max(row.max_abs, o.nan_mismatches ? HUGE_VAL : o.max_abs);
      row.max_ulp = std::max(row.max_ulp, o.max_ulp);
      if (row.worst_output.empty() || ratio_of(o) > row.worst_ratio) {
        row.worst_ratio = ratio_of(o);
        row.worst_output = o.name;
      }
    }
  }
  for (const Cause& cause : r.causes)
    if (cause.candidate == backend) {
      row.cause_code = cause.code;
      row.cause_title = cause.title;
      return;
    }
  if (row.verdict == ConformanceVerdict::Fail)
    row.cause_title = "no known trap explains it; worst output " + row.worst_output;
}

}  // namespace

ConformanceResult run_conformance(const ConformanceRequest& request,
                                  const ConformanceProgress& progress, const RunContext& ctx) {
  Backend& candidate = backend_or_throw(request.backend);
  if (const std::string why = candidate.unavailable_reason(); !why.empty())
    throw Error(ErrorCode::Unavailable, "backend " + request.backend + " is not available: " + why);
  backend_or_throw(request.reference);
  if (request.backend == request.reference)
    fail("conformance: " + request.backend + " would be compared with itself");
  std::vector<ConformanceCase> cases;
  for (ConformanceCase& c : conformance_cases())
    if (request.filter.empty() || c.label().find(request.filter) != std::string::npos)
      cases.push_back(std::move(c));
  if (cases.empty())
    fail(ErrorParts{Option::Filter, clip_for_message(request.filter), "matches no conformance case",
                    "part of a label such as 'FusedBatchNormGradV3 NCHW training inv_std "
                    "float16, C=1 [2,1,3,5]'"});

  ConformanceResult result{request.backend, request.reference, {}};
  std::string skipped_variant;  // the variant found unsupported, listed once
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (progress) progress(i, cases.size());
    ctx.check_cancel();
    const ConformanceCase& c = cases[i];
    const std::string variant = c.variant.label();
    if (variant == skipped_variant) continue;
    ConformanceRow row;
    row.c = c;
    const auto t0 = std::chrono::steady_clock::now();
    try {
      const Problem problem = c.build();
      const Prepared prepared = prepare(problem);
      if (std::string why = candidate.unsupported_reason(prepared); !why.empty()) {
        row.verdict = ConformanceVerdict::Unsupported;
        row.detail = why;
        // A variant the backend does not declare is one row; one whose plugin refuses only
        // some shapes keeps its other shapes.
        if (c.shape.label == "odd sizes") skipped_variant = variant;
      } else {
        PipelineRequest pr;
        pr.backends = {request.reference, request.backend};
        pr.reference = request.reference;
        pr.find_causes = request.find_causes;
        summarize(run_pipeline(problem, prepared, pr, ctx), request.backend, row);
      }
    } catch (const Error& e) {
      if (e.code() == ErrorCode::Cancelled) throw;
      row.verdict = ConformanceVerdict::Error;
      row.detail = e.what();
    }
    row.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    result.rows.push_back(std::move(row));
  }
  if (progress) progress(cases.size(), cases.size());
  return result;
}

}  // namespace bnscope
