// The tolerances of a comparison (analysis/diff.h): defaults per dtype, overridden for all
// outputs, then per output.
#include "analysis/diff.h"

namespace bnscope {

namespace {

struct ToleranceRow {
  DType t;
  Tolerance compare;   // ToleranceSet::Compare
  Tolerance selftest;  // ToleranceSet::Selftest
};

constexpr ToleranceRow kTolerances[] = {
    {DType::F16, {2e-3, 2e-3}, {2e-2, 2e-2}},
    {DType::BF16, {1e-2, 1e-2}, {1e-1, 5e-2}},
    {DType::F32, {1e-3, 1e-3}, {1e-4, 1e-4}},
    {DType::F64, {1e-7, 1e-7}, {1e-10, 1e-10}},
};

}  // namespace

Tolerance default_tolerance(DType t, ToleranceSet set) {
  for (const ToleranceRow& row : kTolerances)
    if (row.t == t) return set == ToleranceSet::Selftest ? row.selftest : row.compare;
  return set == ToleranceSet::Selftest ? kTolerances[3].selftest : kTolerances[3].compare;
}

Tolerance DiffOptions::tolerance_for(const std::string& output, DType t) const {
  Tolerance tol = default_tolerance(t, defaults);
  if (atol) tol.atol = *atol;
  if (rtol) tol.rtol = *rtol;
  if (auto it = output_atol.find(output); it != output_atol.end()) tol.atol = it->second;
  if (auto it = output_rtol.find(output); it != output_rtol.end()) tol.rtol = it->second;
  return tol;
}

}  // namespace bnscope
