#pragma once
// What stopped a run, for the views that list it (the Inputs tab, the warnings): every validation
// problem at once, so a problem with several wrong inputs (after an op switch, say) is fixed in
// one pass rather than one error per re-run.

#include <vector>

#include "ops/prepared.h"

namespace bnscope {

struct RunOutcome;

// Every validation problem when validation failed, the first being out.error word for word; the
// error alone for any other failure (a backend's, a cancel); empty when the run succeeded.
std::vector<ValidationProblem> outcome_problems(const RunOutcome& out);

}  // namespace bnscope
