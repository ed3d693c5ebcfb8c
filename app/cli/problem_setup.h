#pragma once
// The problem a command works on: the one given on the command line, or a seeded sample when none
// was; its one-line description is describe_case (ops/problem.h). The flag value parsers are in
// flag_reader.h.

#include <cstdint>
#include <string>
#include <vector>

#include "ops/sample.h"
#include "problem_args.h"

namespace bnscope::cli {

// The problem from the command line; when no input was given, a seeded random one of the op,
// dtype, convention, data_format and is_training given (logical shape N,H,W,C).
Problem problem_or_sample(const app::ProblemArgs& pa, const Shape& logical_shape,
                          std::uint64_t seed);

// Refuses, from the shape alone, a sample that would not fit the memory limit, or whose run
// would not: before any of it is made.
void check_sample_runs(const SampleSpec& spec);

}  // namespace bnscope::cli
