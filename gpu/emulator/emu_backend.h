#pragma once
// Backend "cuda-emu": the cuda backend's kernels and host orchestration, run on the CPU by the
// CUDA execution emulator with its race and warp checks. Results, no GPU timings.

#include <memory>

#include "backends/backend.h"
#include "kernel_runner.h"

namespace bnscope::gpu {

std::unique_ptr<Backend> make_cuda_emu_backend();

// For tests: run p as cuda-emu with the planner's choice changed.
void run_emulated(const Prepared& p, Result& result, const PlanOverride& override_plan);

}  // namespace bnscope::gpu
