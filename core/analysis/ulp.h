#pragma once
// Distances in units in the last place: the diff's max_ulp column, and the search for the element
// that holds it.

#include <cstdint>

#include "tensor/dtype.h"
#include "tensor/tensor.h"

namespace bnscope {

// ULP distance of a and b after rounding both to dtype t; 0 for equal values (and +0/-0),
// UINT64_MAX when exactly one is NaN.
std::uint64_t ulp_distance(double a, double b, DType t);

// The first flat index whose ulp_distance(candidate, reference) in dtype t is `ulp`, -1 when
// none. Among float32, float16 and bfloat16 tensors both are widened to float a block at a time
// and their distances taken in 32-bit integers (the AVX2 clone where the CPU has it and max_isa,
// as vec_isa_at_most takes it, allows it: tests pick the baseline with 0); with float64 on either
// side, tensors already in t are read as bit patterns. A whole layer takes milliseconds where an
// element-by-element read through doubles takes most of a second.
std::int64_t first_at_ulp(const Tensor& reference, const Tensor& candidate, DType t,
                          std::uint64_t ulp, int max_isa = 2);

}  // namespace bnscope
