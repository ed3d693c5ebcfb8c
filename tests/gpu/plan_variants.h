#pragma once
// The reduction variant the planner did not pick, forced in a plan as a launch needs it: the
// emulated sweep and the phase plan tests reach every variant on the shapes they have.

#include <algorithm>
#include <cstdint>

#include "ops/prepared.h"
#include "planner.h"

namespace bnscope::gpu {

// Makes the plan the other variant: split-m with up to 40 slices of M (more than a warp's 32
// lanes, so the second stage's lanes each sum several partials; fewer where many channel groups
// would make the grid large), or one CTA per channel group. The forward statistics have split-m
// only: they get the slices.
inline void force_other_variant(Plan& plan, const Prepared& p) {
  const std::int64_t m = p.view.outer * p.view.inner;
  const std::int64_t acc = p.t == DType::F64 ? 8 : 4;
  if (plan.variant == Variant::CtaPerGroup || !p.op->is_grad) {
    plan.variant = Variant::SplitM;
    const std::int64_t slices = std::clamp<std::int64_t>(64 / plan.groups, 3, 40);
    plan.m_per_split = (m + slices - 1) / slices;
    plan.splits = static_cast<int>((m + plan.m_per_split - 1) / plan.m_per_split);
    plan.workspace_bytes = plan.splits * p.view.channels * 2 * acc;
  } else {
    plan.variant = Variant::CtaPerGroup;
    plan.splits = 1;
    plan.m_per_split = m;
    plan.workspace_bytes = 0;
  }
}

}  // namespace bnscope::gpu
