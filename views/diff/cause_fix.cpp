#include "diff/cause_fix.h"

namespace bnscope {

std::optional<Problem> problem_with_fix(const Problem& p, const Cause& cause, std::string* why) {
  return apply_cause_fix(p, cause, why);
}

}  // namespace bnscope
