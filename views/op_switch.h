#pragma once
// Switching a problem to another op of the catalog keeps what the new op can use: inputs that
// mean the same under another name, as the catalog names their meanings (x and t, y_backprop and
// backprop, scale and gamma, offset and beta, the saved or population statistics and m, v),
// converted to the new op's layout and types, and epsilon under its other name. Statistics that
// cannot be carried are the data's moments; other inputs are generated to match (the seed rules
// of "Generate inputs"); everything is listed, so the app can say so.

#include <string>
#include <vector>

#include "ops/problem.h"

namespace bnscope {

struct OpSwitch {
  Problem problem;
  std::vector<std::string> carried;    // "x -> t", "epsilon -> variance_epsilon", ...
  std::vector<std::string> generated;  // inputs filled with generated data
  std::vector<std::string> defaulted;  // required attrs set to a stated value
};

// Throws Error when op is not in the catalog.
OpSwitch switch_op(const Problem& from, const std::string& op, std::uint64_t seed);

}  // namespace bnscope
