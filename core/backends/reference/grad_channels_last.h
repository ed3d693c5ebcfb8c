#pragma once
// fused_grad's two data passes over channels-last float32 or float64 data, in vectors across
// channels: the same operations as its plain loops, in the same order per element and per
// channel's sums, so every bit of the outputs is theirs (the file builds without FMA
// contraction). The plain loops convert each segment into double buffers first; these read the
// stored values and write dx directly.

#include <cstdint>

namespace bnscope::reference {

// Rows [0, rows) of channels [c0, c1), row r at element r * C: in row order,
// sd[c - c0] += dy and sdx[c - c0] += dy * (x - mu[c]). T: float or double.
// max_isa, for tests: the widest clone it may pick (0: the baseline build's, 1: AVX2, 2: AVX-512).
template <class T>
void grad_sums_channels_last(const T* x, const T* dy, std::int64_t rows, std::int64_t C,
                             std::int64_t c0, std::int64_t c1, const double* mu, double* sd,
                             double* sdx, int max_isa = 2);

// Per-channel factors of dx, indexed by channel, each as fused_grad computes it.
struct GradFactors {
  const double* gk;       // gamma * k
  const double* mean_dy;  // sum_dy / m
  const double* mu;
  const double* k;
  const double* sum_dy_xc;
  double m;
  bool is_training;
};

// Rows [o0, o1) of dx: gk * (dy - mean_dy - (x - mu) * k * k * sum_dy_xc / m) in training,
// gk * dy in inference, rounded once to T.
template <class T>
void grad_dx_channels_last(const T* x, const T* dy, T* dx, std::int64_t o0, std::int64_t o1,
                           std::int64_t C, const GradFactors& f, int max_isa = 2);

}  // namespace bnscope::reference
