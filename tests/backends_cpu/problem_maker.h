#pragma once
// Seeded problems for every catalog op: data with a non-zero mean, positive variances, and for
// training-mode grads reserve spaces that are the batch statistics of x; and the bitwise check
// of two runs' outputs.

#include <cstdint>
#include <string>

#include "ops/problem.h"
#include "ops/result.h"

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

// One point of a sweep over formats, modes, dtypes and shapes; the other fields keep their
// defaults.
Variant sweep_variant(const OpSpec* op, const std::string& format, bool training, DType dtype,
                      const Shape& nhwc, std::uint32_t seed);
Problem make_problem(const Variant& v);
std::string describe(const Variant& v);

// Every defined output of a has the same bytes as b's (GoogleTest failures name what and the
// output).
void expect_bitwise_equal(const Result& a, const Result& b, const std::string& what);

}  // namespace bnscope::testing
