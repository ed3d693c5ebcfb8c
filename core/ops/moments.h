#pragma once
// The one per-channel moments function: mean and variance of every channel in float64, in two
// passes (the mean, then squared deviations from it) as TensorFlow's CPU kernel does. The
// variance is the biased one (divided by the count M, what batch norm normalizes with); the
// unbiased variance TensorFlow reports as batch_variance is biased * bessel_factor(M)
// (ops/bn_math.h).

#include <functional>
#include <vector>

#include "tensor/layout.h"
#include "tensor/tensor.h"

namespace bnscope {

struct ChannelMoments {
  std::vector<double> mean;
  std::vector<double> biased_variance;
};

// x holds the tensor's values in memory order; view says where each channel's elements are.
// after_pass(k), when given, is called after pass k = 1 (mean) and 2 (variance), so long runs
// can report progress and honour cancellation between the passes. Each pass runs on `threads`
// threads (0: every hardware thread), each over a range of channels whose sums keep the
// single-threaded order: the result is bitwise the same on any thread count.
ChannelMoments channel_moments_biased(const std::vector<double>& x, const ChannelView& view,
                                      const std::function<void(int)>& after_pass = {},
                                      int threads = 0);
// The same, read from the tensor in its own dtype: no float64 copy of the data (which would
// double a large problem's memory).
ChannelMoments channel_moments_biased(const Tensor& x, const ChannelView& view,
                                      const std::function<void(int)>& after_pass = {},
                                      int threads = 0);

// Mean and biased variance in ONE pass over x (its own dtype), for checks with a tolerance far
// above float64 rounding (the reserve-space check): sums of d and d*d with d = x - s, s the
// channel's first element, so the variance does not cancel catastrophically. Not bitwise the
// two-pass figures; bitwise the same on any thread count and whichever vector clone runs (the
// order of additions is fixed, see moments.cpp). A channel holding NaN/Inf has a non-finite mean.
// max_isa, for tests: the widest clone it may pick (0: the baseline build's, 1: AVX2, 2: AVX-512).
ChannelMoments channel_moments_one_pass(const Tensor& x, const ChannelView& view, int threads = 0,
                                        int max_isa = 2);

}  // namespace bnscope
