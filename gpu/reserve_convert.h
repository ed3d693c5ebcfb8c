#pragma once
// reserve_space_2 conventions (spec 1.3): TensorFlow's CPU kernels keep the biased batch
// variance, cuDNN (and so TensorFlow on GPU) 1/sqrt(variance + epsilon). Plain C++.

#include <vector>

#include "ops/prepared.h"

namespace bnscope::gpu {

std::vector<double> variance_to_inv_std(const std::vector<double>& variance, double epsilon);
// 1/r^2 - epsilon, the reconstruction XLA uses; r = 0 or non-finite gives NaN, not Inf.
std::vector<double> inv_std_to_variance(const std::vector<double>& inv_std, double epsilon);

// The training grad's reserve_space_2 as the inverse std cuDNN expects, whatever convention the
// problem declared.
std::vector<double> saved_inv_std(const Prepared& p);

}  // namespace bnscope::gpu
