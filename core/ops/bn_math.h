#pragma once
// Per-channel batch-norm arithmetic shared by the backends and the analyses, in double so every
// caller rounds only once, at its own output type.

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace bnscope {

// The smallest epsilon the TensorFlow Python API hands cuDNN's batch norm: it clamps to this, just
// above CUDNN_BN_MIN_EPSILON (1e-5), "as required by cuDNN"; raw ops pass epsilon unclamped. The
// one copy: the epsilon note, the cause finder's re-run, the app's Apply fix and the cudnn
// backend's check all read it.
inline constexpr double kCudnnMinEpsilon = 1.001e-5;

// Compared as the float attr TensorFlow holds, so an epsilon set to kCudnnMinEpsilon is not below
// it (as a float it is 1.00099996e-5, a hair under the double).
inline bool below_cudnn_min_epsilon(double epsilon) {
  return static_cast<float>(epsilon) < static_cast<float>(kCudnnMinEpsilon);
}

inline double inv_std(double variance, double epsilon) {
  return 1.0 / std::sqrt(variance + epsilon);
}

// The variance a cuDNN-style inverse std stands for (how XLA reconstructs it).
inline double variance_from_inv_std(double r, double epsilon) {
  return 1.0 / (r * r) - epsilon;
}

// TensorFlow's CPU kernel clamps the denominator, so M = 1 gives B = 1 rather than a division by 0.
inline double bessel_factor(std::int64_t m) {
  return static_cast<double>(m) / static_cast<double>(std::max<std::int64_t>(m - 1, 1));
}

// k for the training-mode grad: reserve_space_2 is either the variance or already k.
inline double reserve_inv_std(double reserve_space_2, double epsilon, bool holds_inv_std) {
  return holds_inv_std ? reserve_space_2 : inv_std(reserve_space_2, epsilon);
}

// The running blend of batch_mean/batch_variance; f == 1 ignores the old value entirely, so a
// NaN there does not propagate (spec 9.6).
inline double running_blend(double old_value, double batch_value, double f) {
  return f == 1.0 ? batch_value : (1.0 - f) * old_value + f * batch_value;
}

}  // namespace bnscope
