#pragma once
// FusedBatchNormGrad as a kernel computes it that keeps its per-channel sums in the half data type.
// TensorFlow's kernels accumulate half and bfloat16 data in float32; a naive half kernel keeps
// each running sum in T, rounded after every add, and its per-channel outputs (and, in training
// mode, x_backprop through them) drift from float32 accumulation by far more than T's tolerance
// once a channel holds a few hundred values. No change to the problem makes the cpu backend sum
// that way, so the cause search computes those outputs here instead of re-running.

#include <vector>

#include "ops/prepared.h"
#include "ops/problem.h"
#include "ops/result.h"

namespace bnscope::causes {

// Whether the problem is a FusedBatchNormGrad variant whose data type is float16 or bfloat16: the
// only problems where accumulating in T differs from accumulating in float32.
bool accumulation_can_be_half(const Problem& problem);

// Writes x_backprop, scale_backprop and offset_backprop into `outs` (replacing those of the same
// name, adding those missing) as computed with sum(dy) and sum(dy * (x - mean)) of each channel
// taken as running sums in T over its N*H*W values in memory order, rounded to T after every add;
// each term is formed in float32 from the inputs as TensorFlow forms it, and x_backprop is
// computed in float64 from the rounded sums and rounded once. The outputs have the problem's
// types (x_backprop T, the per-channel ones U) and x's shape and layout. Throws Error when the
// problem does not prepare.
// earlier: as prepare() takes it (the conversions of the same buffers).
void half_accumulated_outputs(const Problem& problem, std::vector<OutputTensor>& outs,
                              const Prepared* earlier = nullptr);

}  // namespace bnscope::causes
