#pragma once
// The notes prepare() attaches about the inputs themselves, needing no backend: non-finite values,
// epsilon below what the TensorFlow Python API or cuDNN accept, and (ops/reserve_check.h) reserve
// spaces that do not fit x.

#include "ops/prepared.h"

namespace bnscope {

// Counts each input's NaN/Inf values into p.non_finite, or takes the count the file reader made
// (Tensor::known_non_finite) or earlier's count of the same buffer (see prepare()).
void note_input_health(Prepared& p, const Prepared* earlier = nullptr);
// note_input_health and check_reserve_spaces, once; prepare() calls it last.
void attach_input_notes(Prepared& p, const Prepared* earlier = nullptr);

}  // namespace bnscope
