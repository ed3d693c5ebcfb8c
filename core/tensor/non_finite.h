#pragma once
// NaN and Inf counts read from the exponent bits: the scan the input and output health notes use,
// and the one the readers run on each piece of a tensor they have just read. Also the largest
// magnitude, read from the same bits.

#include <cstdint>

#include "tensor/tensor.h"

namespace bnscope {

// Every element, on every core.
std::int64_t count_non_finite(const Tensor& t);
// n values of dtype at data, on this thread; the AVX2 clone where the CPU has it and max_isa (as
// vec_isa_at_most takes it) allows it: tests pick the baseline with 0.
std::int64_t count_non_finite(DType dtype, const void* data, std::int64_t n, int max_isa = 2);

// The largest |value| that is not NaN (Inf included; 0 for an empty tensor or all NaN), on every
// core.
double max_magnitude(const Tensor& t);
// n values of dtype at data, on this thread; the clones as count_non_finite picks them.
double max_magnitude(DType dtype, const void* data, std::int64_t n, int max_isa = 2);

}  // namespace bnscope
