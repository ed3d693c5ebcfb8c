#pragma once
// BatchNormWithGlobalNormalizationGrad in half: TensorFlow's CPU kernel sums over the N*H*W rows
// in half, so dm, dv and db reach +-inf once a running sum passes 65504, although the exact
// values fit in half. When a candidate shows exactly that (an infinite per-channel output where
// the reference is finite), this names it as the cause, with the float32 re-run as evidence.

#include <string_view>
#include <vector>

#include "analysis/cause_finder.h"
#include "ops/result.h"

namespace bnscope {

// Whether `backend` takes this problem's per-channel sums in half, step by step, as TensorFlow's
// CPU kernel does for BatchNormWithGlobalNormalizationGrad in half (the cpu backend does): those
// outputs then differ from the exact reference by design, while dx does not.
bool sums_in_half(const Problem& problem, std::string_view backend);

// Adds the "half-sum-overflow" cause first in `causes` (replacing the generic "half-overflow")
// when the candidate's per-channel outputs overflowed that way; leaves `causes` alone otherwise.
void add_half_sum_overflow(const Problem& problem, const Result& candidate,
                           const std::vector<OutputTensor>& expected, const DiffOptions& options,
                           std::vector<Cause>& causes);

}  // namespace bnscope
