#pragma once
// The phases a run of bnscope's kernels makes (backends cuda and cuda-emu), in the order the
// host orchestration times them, each with its description and byte model: what
// Backend::phase_plan says, so the Profile tab, the timeline and the report describe and count a
// GPU run as they do a CPU one. Plain C++ beside the planner, from the same Plan the launch takes.

#include <vector>

#include "backends/backend.h"
#include "ops/prepared.h"
#include "planner.h"

namespace bnscope::gpu {

// What the launch of p has to do: reductions then dx, dx in one pass, or the forward statistics.
Work work_of(const Prepared& p);

// The planner's input for p.
ShapeIn shape_in(const Prepared& p);

// The copies around every GPU run of p: its data input (and gradient) up, its data output down.
PhaseInfo upload_phase(const Prepared& p);
PhaseInfo download_phase(const Prepared& p);

// "upload", the kernels `plan` launches for p as "kernel:<name>", then "download".
std::vector<PhaseInfo> kernel_phases(const Prepared& p, const Plan& plan);

}  // namespace bnscope::gpu
