#pragma once
// Outputs off by noise alone, as a kernel of its own might be: every defined output gets normal
// noise of standard deviation sigma (seeded, so the same noise on every run).

#include <random>
#include <vector>

#include "ops/result.h"

namespace bnscope::test {

inline void add_noise(std::vector<OutputTensor>& outputs, double sigma = 0.02, unsigned seed = 3) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> n(0, sigma);
  for (OutputTensor& o : outputs) {
    if (!o.defined) continue;
    std::vector<double> v = o.tensor.to_doubles();
    for (double& d : v) d += n(rng);
    o.tensor = Tensor::from_doubles(o.tensor.dtype(), o.tensor.shape(), v);
  }
}

}  // namespace bnscope::test
