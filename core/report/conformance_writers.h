#pragma once
// A conformance run's file forms, for a kernel repository's CI. Each writer only reads the
// ConformanceResult; the CLI writes them with io/atomic_file.h.
//   JSON: {"schema": "bnscope-conformance/1", "backend", "reference", "passed",
//          "summary": {"cases", "pass", "fail", "error", "unsupported"},
//          "cases": [{"variant", "case", "shape", "verdict", "worst_output", "max_abs",
//                     "max_ulp", "worst_tolerance_ratio", "cause", "cause_title", "detail",
//                     "seconds"}]}   (non-finite numbers are null)
//   JUnit XML: one <testsuite> for the backend, one <testcase> per case (classname the variant),
//          <failure>, <error> or <skipped> as the verdict says.

#include <ostream>

#include "analysis/conformance.h"

namespace bnscope {

inline constexpr const char* kConformanceSchema = "bnscope-conformance/1";

void write_conformance_json(const ConformanceResult& r, std::ostream& os);
void write_conformance_junit(const ConformanceResult& r, std::ostream& os);

}  // namespace bnscope
