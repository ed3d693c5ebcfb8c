#pragma once
// Problems the app generates: the built-in sample and "Generate inputs".

#include "ops/sample.h"

namespace bnscope {

// random_problem, or when the forward op cannot run here, the same random inputs with
// reserve spaces computed directly from x (batch mean and biased variance, or the population
// statistics in freeze mode).
Problem generate_problem(const SampleSpec& spec);

// The spec that regenerates a problem like p (its op, format, training mode, dtype, shape).
SampleSpec spec_like(const Problem& p, std::uint64_t seed);

}  // namespace bnscope
