#pragma once
// Generated problems: the built-in sample, random inputs for tests and the GUI's "Generate",
// and reserve spaces made consistent with x as the forward op would save them. Seeded by the one
// generator (tensor/seeded_rng.h).

#include <cstddef>
#include <cstdint>
#include <functional>

#include "ops/problem.h"
#include "tensor/layout.h"
#include "tensor/tensor_slice.h"

namespace bnscope {

struct SampleSpec {
  std::string op = "FusedBatchNormGradV3";
  Shape shape = {4, 8, 8, 16};  // logical N,H,W,C (N,D,H,W,C for rank 5), whatever the format
  DataFormat format = DataFormat::NHWC;
  bool is_training = true;
  DType dtype = DType::F32;
  std::uint64_t seed = 1;
  ReserveConvention convention = ReserveConvention::Variance;
  // Threads filling the data (0: every core on large tensors). The values do not depend on it.
  int threads = 0;
  // The gradient input's slices when they are handed out (SampleHooks::gradient_slice). The
  // values do not depend on it either.
  std::size_t slice_bytes = std::size_t{8} << 20;
};

// Seeded random inputs (per-channel means and spreads differ so channels are distinguishable);
// grad ops get reserve spaces from fill_reserve_from_forward.
//
// Hooks for a writer that works alongside (grad ops; the values are the same with or without):
// before_gradient(p) once every input but the gradient input is final (those tensors keep their
// storage). With gradient_slice the gradient input is never held whole and is not in the
// returned problem: it is made in slices of whole rows of about spec.slice_bytes, in order, into
// two buffers used in turn, and gradient_slice hears of each (at least one, empty for an empty
// tensor). A slice's buffer is refilled as soon as the call handing the next slice returns: the
// hook must be done with a slice (and hold no copy of its buffer) by then, and may keep working
// on the latest one while the next is made.
struct SampleHooks {
  std::function<void(const Problem&)> before_gradient;
  std::function<void(const TensorSlice&)> gradient_slice;
};
// Refuses (Error ResourceExhausted) a spec whose problem would not fit the memory limit
// (tensor/memory_limit.h) before it makes anything.
Problem random_problem(const SampleSpec& spec, const SampleHooks& hooks = {});

// The most memory random_problem holds for spec, from the shape alone (saturating, never
// wrapping); gradient_in_slices: the gradient input is handed out in slices.
std::uint64_t sample_bytes(const SampleSpec& spec, bool gradient_in_slices = false);
// Throws Error(ResourceExhausted) when that is more than the memory limit.
void check_sample_memory(const SampleSpec& spec, bool gradient_in_slices = false);

// Sets the statistics inputs of a grad problem to what its forward op would save for x (t), from
// the per-channel moments (ops/moments.h) rounded to the forward's output type: training reserve
// spaces are the saved statistics in the problem's convention, inference-mode ones the forward's
// batch_mean/batch_variance (unbiased variance).
void fill_reserve_from_forward(Problem& problem);

// Logical N..C shape to the physical shape of a format.
Shape physical_shape(const Shape& logical_nhwc, DataFormat format);

}  // namespace bnscope
