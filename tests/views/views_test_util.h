#pragma once
// Shared by the view tests: the sample problem and the engine's own answer for a problem.

#include <optional>
#include <string>

#include "analysis/channel_stats.h"
#include "ops/problem.h"

namespace bnscope::test {

// FusedBatchNormGradV3, NHWC, training, small enough for fast runs.
Problem small_sample(std::uint64_t seed = 7);

// What the engine says, computed directly (no Qt): either stats or the error message.
struct Expected {
  std::optional<ChannelStats> stats;
  std::string error;
};
Expected engine_answer(const Problem& p, const std::string& backend);

}  // namespace bnscope::test
