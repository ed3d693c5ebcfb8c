#include "tensor/dtype.h"

namespace bnscope {

std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::F16:
      return "float16";
    case DType::BF16:
      return "bfloat16";
    case DType::F32:
      return "float32";
    case DType::F64:
      break;
  }
  return "float64";
}

std::string_view tf_dtype_name(DType t) {
  switch (t) {
    case DType::F16:
      return "half";
    case DType::BF16:
      return "bfloat16";
    case DType::F32:
      return "float";
    case DType::F64:
      break;
  }
  return "double";
}

std::optional<DType> parse_dtype(std::string_view s) {
  if (s == "float16" || s == "half" || s == "f16") return DType::F16;
  if (s == "bfloat16" || s == "bf16") return DType::BF16;
  if (s == "float32" || s == "float" || s == "f32") return DType::F32;
  if (s == "float64" || s == "double" || s == "f64") return DType::F64;
  return std::nullopt;
}

std::size_t dtype_size(DType t) {
  switch (t) {
    case DType::F16:
    case DType::BF16:
      return 2;
    case DType::F32:
      return 4;
    case DType::F64:
      break;
  }
  return 8;
}

float half_bits_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  std::uint32_t exp = (h >> 10) & 0x1fu;
  std::uint32_t mant = h & 0x3ffu;
  std::uint32_t u;
  if (exp == 0x1f) {
    u = sign | 0x7f800000u | (mant << 13);
  } else if (exp != 0) {
    u = sign | ((exp + 112u) << 23) | (mant << 13);
  } else if (mant == 0) {
    u = sign;
  } else {
    // Subnormal half: normalise into a float's wider exponent range.
    exp = 113;
    while ((mant & 0x400u) == 0) {
      mant <<= 1;
      --exp;
    }
    u = sign | (exp << 23) | ((mant & 0x3ffu) << 13);
  }
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

std::uint16_t float_to_half_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  const std::uint16_t sign = static_cast<std::uint16_t>((u >> 16) & 0x8000u);
  const std::uint32_t abs = u & 0x7fffffffu;
  if (abs > 0x7f800000u) return static_cast<std::uint16_t>(sign | 0x7e00u);  // NaN
  if (abs >= 0x477ff000u)
    return static_cast<std::uint16_t>(sign | 0x7c00u);  // overflow rounds to Inf
  if (abs < 0x38800000u) {
    // Result is subnormal or zero: shift the implicit-one mantissa into place, round to nearest
    // even.
    if (abs < 0x33000000u) return sign;  // below half the smallest subnormal
    const std::uint32_t exp = abs >> 23;
    const std::uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
    const std::uint32_t shift = 126 - exp;  // 14..24
    std::uint32_t half_mant = mant >> shift;
    const std::uint32_t rem = mant & ((1u << shift) - 1);
    const std::uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (half_mant & 1u))) ++half_mant;
    return static_cast<std::uint16_t>(sign | half_mant);
  }
  std::uint32_t r = abs - 0x38000000u;  // rebias exponent from 127 to 15
  r += 0xfffu + ((r >> 13) & 1u);
  return static_cast<std::uint16_t>(sign | (r >> 13));
}

}  // namespace bnscope
