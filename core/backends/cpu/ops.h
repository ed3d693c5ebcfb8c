#pragma once
// The cpu backend's ops: per-channel epilogues around the pass structures in passes.h.

#include "backends/cpu/pass_plan.h"
#include "backends/cpu/passes.h"
#include "ops/prepared.h"

namespace bnscope::cpu {

// result holds allocate_outputs()'s tensors; these fill them.
void run_fused_grad(const Exec& ex, const Prepared& p, Result& result);
void run_global_grad(const Exec& ex, const Prepared& p, Result& result);
// T = half: TensorFlow's arithmetic, every step rounded to half (simd_global_half.cpp).
void run_global_grad_half(const Exec& ex, const Prepared& p, Result& result);
void run_fused_forward(const Exec& ex, const Prepared& p, Result& result);
void run_global_forward(const Exec& ex, const Prepared& p, Result& result);

template <class A>
std::vector<A> narrow(const std::vector<double>& v) {
  return std::vector<A>(v.begin(), v.end());
}

}  // namespace bnscope::cpu
