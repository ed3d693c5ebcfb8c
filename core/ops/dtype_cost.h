#pragma once
// What a run holds in memory at a dtype, counted as prepare()'s memory check counts it: every
// input in the op's types for that T and the data-shaped output with its converted copy. Said
// before a dtype change is made, so that choosing float64 for a large layer is no surprise.

#include <cstdint>

#include "ops/problem.h"
#include "tensor/dtype.h"

namespace bnscope {

// 0 for an unknown op.
std::uint64_t run_bytes_at(const Problem& problem, DType t);

}  // namespace bnscope
