#pragma once
// The comparison sweep behind `bnscope-cli selftest` and the device tests: every op of the
// catalog x data format x mode x dtype on the shapes of TensorFlow's own tests (spec 8.1, 8.2),
// run on a GPU backend and on cpu-reference, outputs compared through the one pipeline
// (analysis/pipeline.h) with the selftest column of the one tolerance table
// (ToleranceSet::Selftest). Plain C++: the cases and the comparison are tested without a GPU.

#include <functional>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "ops/prepared.h"
#include "ops/problem.h"

namespace bnscope::gpu {

struct SelftestCase {
  std::string label;  // "FusedBatchNormGradV3 NCHW train inv_std float16 [5,7,11,4]"
  // Builds the problem on demand: the sweep's inputs together would need gigabytes.
  std::function<Problem()> build;
};

// Built from op_catalog(); deterministic inputs. Grad training cases carry reserve spaces that
// are the true batch statistics of x in the case's convention.
std::vector<SelftestCase> selftest_cases();

enum class CaseStatus { Pass, Fail, Unsupported, Error };
std::string_view case_status_name(CaseStatus s);

struct CaseOutcome {
  CaseStatus status = CaseStatus::Pass;
  double worst = 0;    // largest |a - b| / (atol + rtol*|b|) over compared outputs; <= 1 passes
  std::string detail;  // the worst output and index, or the error / unsupported reason
};

// Compares two runs of p through run_pipeline: every defined output both results have, except the
// forward ops' reserve_space_3 (backend-private by definition); an output want defines that got
// lacks, or one of another shape, fails. Runs of the same backend name are told apart.
CaseOutcome compare_case(const Prepared& p, Result got, Result want);
// Runs the case on both backends; engine errors become Error outcomes, never exceptions.
CaseOutcome run_selftest_case(const SelftestCase& c, Backend& backend, Backend& reference);

}  // namespace bnscope::gpu
