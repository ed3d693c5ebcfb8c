#pragma once
// Element types of the tensors bnscope handles, and the conversions between them.

#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>

namespace bnscope {

enum class DType : std::uint8_t { F16, BF16, F32, F64 };

inline constexpr DType kAllDTypes[] = {DType::F16, DType::BF16, DType::F32, DType::F64};
// The largest finite float16.
inline constexpr double kHalfMax = 65504.0;

// numpy-style name: float16, bfloat16, float32, float64.
std::string_view dtype_name(DType t);
// TensorFlow's name: half, bfloat16, float, double.
std::string_view tf_dtype_name(DType t);
// Accepts both spellings and the short forms f16, bf16, f32, f64.
std::optional<DType> parse_dtype(std::string_view s);
std::size_t dtype_size(DType t);

// Storage types for the 16-bit formats: plain bit patterns so they are trivially copyable.
struct f16 {
  std::uint16_t bits;
};
struct bf16 {
  std::uint16_t bits;
};

float half_bits_to_float(std::uint16_t h);
std::uint16_t float_to_half_bits(float f);  // round to nearest even, keeps NaN/Inf

inline float bits_to_f32(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
inline std::uint32_t f32_to_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

inline float bf16_bits_to_float(std::uint16_t b) {
  return bits_to_f32(static_cast<std::uint32_t>(b) << 16);
}
inline std::uint16_t float_to_bf16_bits(float f) {
  std::uint32_t u = f32_to_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return static_cast<std::uint16_t>((u >> 16) | 0x40);  // quiet NaN
  u += 0x7fffu + ((u >> 16) & 1u);                        // round to nearest even
  return static_cast<std::uint16_t>(u >> 16);
}

inline float to_float(f16 v) {
  return half_bits_to_float(v.bits);
}
inline float to_float(bf16 v) {
  return bf16_bits_to_float(v.bits);
}
inline float to_float(float v) {
  return v;
}
inline double to_float(double v) {
  return v;
}

template <class T>
T from_float(float v);
template <>
inline f16 from_float<f16>(float v) {
  return f16{float_to_half_bits(v)};
}
template <>
inline bf16 from_float<bf16>(float v) {
  return bf16{float_to_bf16_bits(v)};
}
template <>
inline float from_float<float>(float v) {
  return v;
}
template <>
inline double from_float<double>(float v) {
  return v;
}

template <class T>
struct DTypeOf;
template <>
struct DTypeOf<f16> {
  static constexpr DType value = DType::F16;
};
template <>
struct DTypeOf<bf16> {
  static constexpr DType value = DType::BF16;
};
template <>
struct DTypeOf<float> {
  static constexpr DType value = DType::F32;
};
template <>
struct DTypeOf<double> {
  static constexpr DType value = DType::F64;
};

template <class T>
struct TypeTag {
  using type = T;
};

// Calls f(TypeTag<T>{}) with T the storage type of dtype t.
template <class F>
decltype(auto) visit_dtype(DType t, F&& f) {
  switch (t) {
    case DType::F16:
      return f(TypeTag<f16>{});
    case DType::BF16:
      return f(TypeTag<bf16>{});
    case DType::F32:
      return f(TypeTag<float>{});
    case DType::F64:
      break;
  }
  return f(TypeTag<double>{});
}

}  // namespace bnscope
