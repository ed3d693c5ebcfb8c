#pragma once
// Health of a run: non-finite counts and the notes that go with them.

#include <cstdint>

#include "engine/result.h"
#include "ops/prepared.h"

namespace bnscope {

std::int64_t count_non_finite(const Tensor& t);

// Notes about the inputs that need no backend: non-finite values, epsilon below what the
// TensorFlow Python API or cuDNN accept.
void note_input_health(Prepared& p);
// Fills each defined output's non_finite count and notes the outputs that hold any.
void note_output_health(Result& r);

}  // namespace bnscope
