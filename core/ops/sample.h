#pragma once
// Generated problems: the built-in sample, random inputs for tests and the GUI's "Generate",
// and reserve spaces made consistent with x by running the forward op.

#include <cstdint>

#include "ops/problem.h"
#include "tensor/layout.h"

namespace bnscope {

struct SampleSpec {
  std::string op = "FusedBatchNormGradV3";
  Shape shape = {4, 8, 8, 16};  // logical N,H,W,C (N,D,H,W,C for rank 5), whatever the format
  DataFormat format = DataFormat::NHWC;
  bool is_training = true;
  DType dtype = DType::F32;
  std::uint64_t seed = 1;
  ReserveConvention convention = ReserveConvention::Variance;
};

// Seeded random inputs (per-channel means and spreads differ so channels are distinguishable);
// grad ops get reserve spaces from fill_reserve_from_forward.
Problem random_problem(const SampleSpec& spec);

// Sets the statistics inputs of a grad problem from its forward op run on x (t), scale (gamma) and
// offset (zeros): training reserve spaces are the forward's saved statistics in the problem's
// convention, freeze-mode ones the forward's batch_mean/batch_variance. Runs on cpu-reference.
void fill_reserve_from_forward(Problem& problem, const Tensor* offset = nullptr);

// Logical N..C shape to the physical shape of a format.
Shape physical_shape(const Shape& logical_nhwc, DataFormat format);

}  // namespace bnscope
