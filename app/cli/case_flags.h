#pragma once
// Problem set-up shared by the diff, bench, profile and report commands, and the reference that
// diff and report compare with; the flag value parsers are in flag_reader.h.

#include <cstdint>
#include <string>
#include <vector>

#include "backends/result.h"
#include "ops/prepared.h"
#include "ops/sample.h"
#include "problem_args.h"

namespace bnscope::cli {

// The problem from the command line; when no input was given, a seeded random one of the op,
// dtype, convention, data_format and is_training given (logical shape N,H,W,C).
Problem problem_or_sample(const app::ProblemArgs& pa, const Shape& logical_shape,
                          std::uint64_t seed);

// What diff and report compare each backend with: the outputs in `against` (then every backend
// is a candidate), else the first backend's (the others are the candidates); none with neither.
struct Reference {
  std::string name;
  std::vector<OutputTensor> outputs;
  std::size_t first_candidate = 1;
};
Reference reference_outputs(const std::string& against, const Prepared& prepared,
                            const std::vector<Result>& results);

// A one-line description: op, shape, dtype, format, mode.
std::string describe_case(const Problem& p);

}  // namespace bnscope::cli
