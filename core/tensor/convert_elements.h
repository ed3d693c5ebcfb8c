#pragma once
// A whole buffer of one floating-point type written as another: what Tensor::to does for every
// element (through float, as Tensor::set rounds), in vectorizable loops on the core's threads.
// Choosing float16 for a 100 MB layer converts x and dy; element by element that took most of the
// toggle.

#include <cstdint>

#include "tensor/dtype.h"

namespace bnscope {

class Tensor;

// dst[i] = src[i] converted from `from` to `to`, bit for bit as Tensor::set(i, get(i)) writes it
// (a float64 source is rounded to float first when the destination is narrower than float64).
// src and dst must not overlap. The AVX2 clone runs where the CPU has it and max_isa (as
// vec_isa_at_most takes it) allows it: tests pick the baseline build's loop with 0.
void convert_elements(const void* src, DType from, void* dst, DType to, std::int64_t n,
                      int max_isa = 2);

// Elements [begin, begin + n) of t, a float32, float16 or bfloat16 tensor, as floats: its own
// storage when it is float32, else widened (exactly) into buf, which holds n floats.
const float* floats_of(const Tensor& t, std::int64_t begin, std::int64_t n, float* buf);

}  // namespace bnscope
