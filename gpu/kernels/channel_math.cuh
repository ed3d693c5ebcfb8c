#pragma once
// Per-channel epilogues: from the two reductions of a channel to its per-channel outputs and to
// the coefficients of dx = A*dy + B*(x - mu) + D. Shared by the one-CTA kernel and the split-M
// second stage so both variants compute the same expressions in the same order.

#include "../blocks/types.cuh"
#include "../launch.h"

namespace bnscope::gpu::BNSCOPE_DEVICE_NS {

template <class Acc>
struct Coef {
  Acc a, b, d, mu;
};

// k = 1/sqrt(var + eps), or the saved inverse std itself.
template <class Acc>
__device__ __forceinline__ Acc channel_k(const GradLaunch& g, long long c) {
  const Acc v = static_cast<const Acc*>(g.var)[c];
  return g.var_is_inv_std ? v : inv_sqrt(v + static_cast<Acc>(g.epsilon));
}

template <class Acc>
__device__ __forceinline__ Acc channel_gamma(const GradLaunch& g, long long c) {
  return g.kind == GradKind::GlobalUnscaled ? Acc(1) : static_cast<const Acc*>(g.scale)[c];
}

// dx's factor on dy when dx needs no reduction (freeze and global grads).
template <class Acc>
__device__ __forceinline__ Acc direct_factor(const GradLaunch& g, long long c) {
  return channel_gamma<Acc>(g, c) * channel_k<Acc>(g, c);
}

// The training grad's dx coefficients from the channel's sums (no outputs written): what
// grad_epilogue returns for GradKind::Training.
template <class Acc>
__device__ __forceinline__ Coef<Acc> training_coef(const GradLaunch& g, long long c, Acc sdy,
                                                   Acc sdyx, long long m) {
  const Acc k = channel_k<Acc>(g, c);
  const Acc gamma = channel_gamma<Acc>(g, c);
  const Acc inv_m = Acc(1) / static_cast<Acc>(m);
  return {gamma * k, -gamma * k * k * k * sdyx * inv_m, -gamma * k * sdy * inv_m,
          static_cast<const Acc*>(g.mean)[c]};
}

// sdy = sum dy, sdyx = sum dy*(x - mu); m = positions per channel.
template <class Acc>
__device__ __forceinline__ Coef<Acc> grad_epilogue(const GradLaunch& g, long long c, Acc sdy,
                                                   Acc sdyx, long long m) {
  const Acc k = channel_k<Acc>(g, c);
  const Acc gamma = channel_gamma<Acc>(g, c);
  const Acc mu = static_cast<const Acc*>(g.mean)[c];
  Acc* out_scale = static_cast<Acc*>(g.out_scale);
  Acc* out_offset = static_cast<Acc*>(g.out_offset);
  Coef<Acc> r{gamma * k, Acc(0), Acc(0), mu};
  switch (g.kind) {
    case GradKind::Training: {
      r = training_coef<Acc>(g, c, sdy, sdyx, m);
      out_scale[c] = sdyx * k;
      out_offset[c] = sdy;
      break;
    }
    case GradKind::Freeze:
      out_scale[c] = sdyx * k;
      out_offset[c] = sdy;
      break;
    case GradKind::GlobalScaled:
    case GradKind::GlobalUnscaled:
      static_cast<Acc*>(g.out_dm)[c] = -sdy * gamma * k;
      static_cast<Acc*>(g.out_dv)[c] = Acc(-0.5) * gamma * sdyx * k * k * k;
      out_offset[c] = sdy;
      out_scale[c] = g.kind == GradKind::GlobalScaled ? sdyx * k : Acc(0);
      break;
  }
  return r;
}

// s0 = sum (x - mu0), s1 = sum (x - mu0)^2 around the first pass's mean mu0.
template <class Acc>
__device__ __forceinline__ Coef<Acc> forward_epilogue(const ForwardTrainingLaunch& f, long long c,
                                                      Acc mu0, Acc s0, Acc s1, long long m) {
  const Acc inv_m = Acc(1) / static_cast<Acc>(m);
  const Acc shift = s0 * inv_m;
  Acc var = s1 * inv_m - shift * shift;
  if (var < Acc(0)) var = Acc(0);
  const Acc mean = mu0 + shift;
  const Acc k = inv_sqrt(var + static_cast<Acc>(f.epsilon));
  const Acc bessel = static_cast<Acc>(m) / static_cast<Acc>(m > 1 ? m - 1 : 1);
  const Acc factor = static_cast<Acc>(f.factor);
  Acc* bm = static_cast<Acc*>(f.batch_mean);
  Acc* bv = static_cast<Acc*>(f.batch_var);
  if (f.factor == 1.0) {
    bm[c] = mean;
    bv[c] = var * bessel;
  } else {
    bm[c] = (Acc(1) - factor) * static_cast<const Acc*>(f.mean_in)[c] + factor * mean;
    bv[c] = (Acc(1) - factor) * static_cast<const Acc*>(f.var_in)[c] + factor * var * bessel;
  }
  static_cast<Acc*>(f.rs1)[c] = mean;
  static_cast<Acc*>(f.rs2)[c] = f.rs2_inv_std ? k : var;
  const Acc gamma = static_cast<const Acc*>(f.scale)[c];
  return {Acc(0), gamma * k, static_cast<const Acc*>(f.offset)[c], mean};
}

template <class Acc>
__device__ __forceinline__ void store_coef(void* coef, long long channels, long long c,
                                           const Coef<Acc>& r) {
  Acc* p = static_cast<Acc*>(coef);
  p[c] = r.a;
  p[channels + c] = r.b;
  p[2 * channels + c] = r.d;
  p[3 * channels + c] = r.mu;
}

}  // namespace bnscope::gpu::BNSCOPE_DEVICE_NS
