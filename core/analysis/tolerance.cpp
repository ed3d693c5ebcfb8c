// The tolerances of a comparison (analysis/diff.h): defaults per dtype, overridden for all
// outputs, then per output.
#include "analysis/diff.h"

namespace bnscope {

Tolerance default_tolerance(DType t) {
  switch (t) {
    case DType::F16:
      return {2e-3, 2e-3};
    case DType::BF16:
      return {1e-2, 1e-2};
    case DType::F32:
      return {1e-3, 1e-3};
    case DType::F64:
      break;
  }
  return {1e-7, 1e-7};
}

Tolerance DiffOptions::tolerance_for(const std::string& output, DType t) const {
  Tolerance tol = default_tolerance(t);
  if (atol) tol.atol = *atol;
  if (rtol) tol.rtol = *rtol;
  if (auto it = output_atol.find(output); it != output_atol.end()) tol.atol = it->second;
  if (auto it = output_rtol.find(output); it != output_rtol.end()) tol.rtol = it->second;
  return tol;
}

}  // namespace bnscope
