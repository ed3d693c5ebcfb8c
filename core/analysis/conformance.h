#pragma once
// The conformance run: every variant a backend takes (op x layout x mode x reserve convention x
// dtype, asked through unsupported_reason, so a plugin's declared variants are exactly what runs)
// on the shapes where kernels go wrong (C = 1, M = 1, odd sizes, 5-D, an empty batch, NaN/Inf
// inputs, epsilon 0 and below cuDNN's minimum), each compared with cpu-reference through the one
// pipeline (analysis/pipeline.h) with its dtype tolerances and causes. Plain data for the CLI's
// table, its JUnit and JSON files and the app's Conformance view.

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "analysis/pipeline.h"
#include "ops/problem.h"
#include "tensor/layout.h"

namespace bnscope {

struct ConformanceVariant {
  const OpSpec* op = nullptr;
  DataFormat format = DataFormat::NHWC;
  bool training = true;
  ReserveConvention convention = ReserveConvention::Variance;
  DType dtype = DType::F32;
  // "FusedBatchNormGradV3 NHWC training variance float16"
  std::string label() const;
};

// One shape case of a variant: how its problem differs from a plain one.
struct ConformanceShape {
  std::string label;    // "C=1", "odd sizes", "NaN/Inf inputs", "epsilon 0", ...
  Shape logical;        // N,H,W,C (N,D,H,W,C for the 5-D layouts)
  double epsilon = -1;  // < 0: the op's default
  bool non_finite = false;
};

struct ConformanceCase {
  ConformanceVariant variant;
  ConformanceShape shape;
  std::uint64_t seed = 1;
  std::string label() const;  // variant label, shape label and the physical shape
  Problem build() const;      // deterministic
};

// The physical shape of x for a case.
Shape physical_shape_of(const ConformanceCase& c);

// Every variant of the catalog and its shape cases, in catalog order.
std::vector<ConformanceCase> conformance_cases();

enum class ConformanceVerdict { Pass, Fail, Error, Unsupported };
std::string_view verdict_name(ConformanceVerdict v);  // "pass", "FAIL", "ERROR", "unsupported"

struct ConformanceRow {
  ConformanceCase c;
  ConformanceVerdict verdict = ConformanceVerdict::Pass;
  std::string worst_output;  // the output with the worst tolerance ratio
  double max_abs = 0;        // worst |a-b| over compared outputs
  std::uint64_t max_ulp = 0;
  double worst_ratio = 0;   // |a-b| / (atol + rtol*|b|); <= 1 passes
  std::string cause_code;   // the pipeline's best cause for the candidate; empty when none
  std::string cause_title;  // or, failing with no known cause, what is known
  std::string detail;       // the error or unsupported reason
  double seconds = 0;       // the whole case, runs and causes
};

struct ConformanceRequest {
  std::string backend;
  std::string reference = kReferenceBackend;
  std::string filter;  // substring of the case label; empty: every case
  bool find_causes = true;
};

struct ConformanceResult {
  std::string backend, reference;
  std::vector<ConformanceRow> rows;  // case order, unsupported variants included once each
  int count(ConformanceVerdict v) const;
  bool passed() const {
    return count(ConformanceVerdict::Fail) == 0 && count(ConformanceVerdict::Error) == 0;
  }
  // Row indices: errors and failures first (worst ratio first), then passes, then unsupported.
  std::vector<std::size_t> failing_first() const;
};

using ConformanceProgress = std::function<void(std::size_t done, std::size_t total)>;

// Throws Error for an unknown or unavailable backend, a filter that matches no case, or a
// cancelled ctx; a case that fails to run is an Error row, never an exception.
ConformanceResult run_conformance(const ConformanceRequest& request,
                                  const ConformanceProgress& progress = {},
                                  const RunContext& ctx = {});

}  // namespace bnscope
