#pragma once
// Shared by the analysis view tests: a small sample problem and a fixed CPU roofline.

#include <cstdint>

#include "ops/problem.h"
#include "profile/profiler.h"

namespace bnscope::test {

// The view tests' small sample (tests/views), with this room's own default seed.
Problem analysis_sample(std::uint64_t seed = 11);
// Profile options that skip the 256 MB copy probe (a fixed 20 GB/s roofline).
ProfileOptions quick_profile_options(int reps = 3);

}  // namespace bnscope::test
