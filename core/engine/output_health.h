#pragma once
// The health of a run's outputs: each defined output's NaN/Inf count and a note for those that
// hold any. The engine ends every run with it.

#include "engine/result.h"

namespace bnscope {

void note_output_health(Result& r);

}  // namespace bnscope
