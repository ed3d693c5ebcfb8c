#include "outcome_problems.h"

#include "analysis/outcome.h"

namespace bnscope {

std::vector<ValidationProblem> outcome_problems(const RunOutcome& out) {
  if (out.error.empty()) return {};
  const std::string& error = out.error;
  if (!out.prepared && !out.cancelled) {
    // Only the shapes are looked at again: no input is converted or scanned.
    std::vector<ValidationProblem> all = validation_problems(out.problem);
    if (!all.empty() && all.front().message == error) return all;
  }
  return {{std::string(), error}};
}

}  // namespace bnscope
