#pragma once
// Flags and problem set-up shared by the diff, bench, profile and report commands.

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

std::vector<std::string> split_list(const std::string& text);  // "a,b,c"
double parse_double_flag(const std::string& flag, const std::string& text);
int parse_int_flag(const std::string& flag, const std::string& text, int lo, int hi);
// "32,56,56,64" or "[32,56,56,64]": logical N,H,W,C (5 values for the 3-D formats).
Shape parse_shape_flag(const std::string& flag, const std::string& text);

// A one-line description: op, shape, dtype, format, mode.
std::string describe_case(const Problem& p);

}  // namespace bnscope::cli
