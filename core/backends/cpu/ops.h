#pragma once
// The cpu backend's ops: per-channel epilogues around the pass structures in passes.h.

#include "backends/cpu/host_caches.h"
#include "backends/cpu/pass_plan.h"
#include "backends/cpu/passes.h"
#include "ops/prepared.h"

namespace bnscope::cpu {

// result holds allocate_outputs()'s tensors; these fill them.
void run_fused_grad(const Exec& ex, const Prepared& p, Result& result);
void run_global_grad(const Exec& ex, const Prepared& p, Result& result);
// T = half: TensorFlow's arithmetic, every step rounded to half (global_grad_half.cpp).
void run_global_grad_half(const Exec& ex, const Prepared& p, Result& result);
void run_fused_forward(const Exec& ex, const Prepared& p, Result& result);
void run_global_forward(const Exec& ex, const Prepared& p, Result& result);

// Whether an output is streamed with non-temporal stores: when the run's tensors together
// (`tensors` of output_bytes each: x, dy, dx for the grads) exceed half of this host's
// last-level cache, a cached dx could not stay anyway; it would cost a read-for-ownership (a 4th
// pass) and evict x and dy. Below that, cached stores leave dx where the next reader finds it.
inline bool stream_output(std::size_t output_bytes, int tensors) {
  return output_bytes * static_cast<std::size_t>(tensors) > host_caches().llc_bytes() / 2;
}

template <class A>
std::vector<A> narrow(const std::vector<double>& v) {
  return std::vector<A>(v.begin(), v.end());
}

}  // namespace bnscope::cpu
