#pragma once
// The host orchestration of bnscope's kernels, shared by backend "cuda" (CUDA runtime) and
// backend "cuda-emu" (the emulator's host runtime): planning, uploads, workspaces, the split-M
// second stage, reserve-space conventions, per-channel results, downloads and phase timings.

#include <functional>
#include <string>
#include <string_view>

#include "device_runtime.h"
#include "ops/prepared.h"
#include "ops/result.h"

namespace bnscope::gpu {

// Why the kernels do not run p: a dtype outside the op's GPU types in the catalog; empty when
// they do.
std::string kernels_unsupported_reason(const Prepared& p);

// Lets a caller change the planner's choice (tests force the variant a shape would not get, or
// the 64-bit index path on a small shape). Empty: the planner's plan as is.
using PlanOverride = std::function<void(Plan&)>;

// The plan a run of p on rt launches (kernel_phases names its phases from it).
Plan plan_for(DeviceRuntime& rt, const Prepared& p, const PlanOverride& override_plan = {});

void run_kernels(DeviceRuntime& rt, const Prepared& p, Result& result,
                 std::string_view backend_name, const PlanOverride& override_plan = {});

}  // namespace bnscope::gpu
