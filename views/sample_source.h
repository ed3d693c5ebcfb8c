#pragma once
// Problems the app generates: the built-in sample and "Generate inputs".

#include "ops/sample.h"

namespace bnscope {

// random_problem: seeded inputs, reserve spaces from the data's moments (ops/sample.h).
Problem generate_problem(const SampleSpec& spec);

// The spec that regenerates a problem like p (its op, format, training mode, dtype, shape).
SampleSpec spec_like(const Problem& p, std::uint64_t seed);

}  // namespace bnscope
