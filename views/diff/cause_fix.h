#pragma once
// The change a likely cause names, applied to the problem (the Diff tab's "Apply fix"): the
// cause catalog's fix with its fitted values, as the cause search's re-run made it.

#include <optional>
#include <string>

#include "analysis/cause_finder.h"
#include "ops/problem.h"

namespace bnscope {

// The problem with the cause's change made; nullopt (and *why) when the cause names no change
// that applies to this problem.
std::optional<Problem> problem_with_fix(const Problem& p, const Cause& cause, std::string* why);

}  // namespace bnscope
