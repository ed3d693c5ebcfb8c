#pragma once
// The cpu-reference kernels, one per op family: plain loops over the ChannelView of the data,
// everything in double, outputs rounded once at the end.

#include "backends/backend.h"

namespace bnscope::reference {

void fused_grad(const Prepared& p, Result& result, const RunContext& ctx);
void fused_forward(const Prepared& p, Result& result, const RunContext& ctx);
void global_grad(const Prepared& p, Result& result, const RunContext& ctx);
void global_forward(const Prepared& p, Result& result, const RunContext& ctx);

// Reports progress after pass `done` of `total` and polls for cancellation.
void end_pass(const RunContext& ctx, int done, int total);

// Writes doubles into an output tensor of any dtype.
void store(Tensor& t, const std::vector<double>& values);

}  // namespace bnscope::reference
