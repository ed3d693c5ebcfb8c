#pragma once
// Element conversions for loops over whole tensors: the cpu backend's inner loops, Tensor::to and
// the comparison of a half-precision output with a float32 one. The ones in tensor/dtype.h are out
// of line and branchy (fine for single elements); these are inline and branch-free (selects only)
// so that gcc vectorizes the loops that use them. Results match tensor/dtype.h bit for bit,
// including round-to-nearest-even and NaN handling (tests/tensor/element_convert_test.cpp checks
// every f16 value).
// The f16 store's two scalings must round separately: a file using it builds without
// contraction into fused multiply-adds or leaves it to a target without them.

#include <cstdint>

#include "tensor/accumulate.h"
#include "tensor/dtype.h"

namespace bnscope::element {

inline float load(float v) {
  return v;
}
inline double load(double v) {
  return v;
}
inline float load(bf16 v) {
  return bf16_bits_to_float(v.bits);
}
// Scales the half's exponent field into float range by a multiplication: normal, Inf and NaN
// inputs come out exact; subnormals are rebuilt through a magic-number subtraction.
inline float load(f16 v) {
  const std::uint32_t w = static_cast<std::uint32_t>(v.bits) << 16;
  const std::uint32_t sign = w & 0x80000000u;
  const std::uint32_t two_w = w + w;
  const float normal = bits_to_f32((two_w >> 4) + (0xE0u << 23)) * 0x1.0p-112f;
  const float subnormal = bits_to_f32((two_w >> 17) | (126u << 23)) - 0.5f;
  // Selects through masks from signed compares of non-negative values: SSE2 vectorizes those.
  const std::uint32_t is_sub =
      0u - static_cast<std::uint32_t>(static_cast<std::int32_t>(two_w >> 1) < (1 << 26));
  const std::uint32_t mag = (f32_to_bits(subnormal) & is_sub) | (f32_to_bits(normal) & ~is_sub);
  return bits_to_f32(sign | mag);
}

template <class T>
T store(Acc<T> v);
template <>
inline float store<float>(float v) {
  return v;
}
template <>
inline double store<double>(double v) {
  return v;
}
template <>
inline bf16 store<bf16>(float v) {
  const std::uint32_t u = f32_to_bits(v);
  const std::uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
  const std::uint32_t nan = (u >> 16) | 0x40u;
  const bool is_nan = (u & 0x7fffffffu) > 0x7f800000u;
  return bf16{static_cast<std::uint16_t>(is_nan ? nan : rounded)};
}
// Lets the FPU do the rounding: scaling by 2^112 then 2^-110 saturates overflow to Inf and
// flushes the bits below half precision with round-to-nearest-even, for normals and subnormals.
template <>
inline f16 store<f16>(float v) {
  const std::uint32_t w = f32_to_bits(v);
  const std::uint32_t sign = w & 0x80000000u;
  const std::int32_t abs = static_cast<std::int32_t>(w & 0x7fffffffu);
  float base = (bits_to_f32(static_cast<std::uint32_t>(abs)) * 0x1.0p+112f) * 0x1.0p-110f;
  std::int32_t exp = abs & 0x7F800000;
  exp = exp < 0x38800000 ? 0x38800000 : exp;
  base = bits_to_f32(static_cast<std::uint32_t>(exp) + 0x07800000u) + base;
  const std::uint32_t bits = f32_to_bits(base);
  const std::uint32_t nonsign = ((bits >> 13) & 0x00007C00u) + (bits & 0x00000FFFu);
  const std::uint32_t is_nan = 0u - static_cast<std::uint32_t>(abs > 0x7F800000);
  const std::uint32_t h = (sign >> 16) | (0x7E00u & is_nan) | (nonsign & ~is_nan);
  return f16{static_cast<std::uint16_t>(h)};
}

}  // namespace bnscope::element
