#pragma once
// Seeded problems for every catalog op: data with a non-zero mean, positive variances, and for
// training-mode grads reserve spaces that are the batch statistics of x.

#include <cstdint>
#include <string>

#include "ops/problem.h"

namespace bnscope::testing {

struct Variant {
  const OpSpec* op = nullptr;
  std::string format = "NHWC";  // ignored by the global ops
  bool training = true;
  DType dtype = DType::F32;
  Shape nhwc;  // [N, spatial..., C]; permuted for the channels-first formats
  std::uint32_t seed = 1;
  bool inv_std = false;  // training grads: reserve_space_2 holds 1/sqrt(var + eps)
  double avg_factor = 1.0;
};

Problem make_problem(const Variant& v);
std::string describe(const Variant& v);

}  // namespace bnscope::testing
