#include "analysis/ulp.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>

#include "tensor/convert_elements.h"
#include "tensor/element_convert.h"

namespace bnscope {

namespace {

constexpr std::uint64_t kOneNan = std::numeric_limits<std::uint64_t>::max();

// Sign-magnitude bit patterns mapped onto an unsigned line where adjacent floats are adjacent
// integers and +0 and -0 coincide.
std::uint64_t ordered_key(std::uint64_t bits, int width) {
  const std::uint64_t sign = std::uint64_t{1} << (width - 1);
  const std::uint64_t mag = bits & (sign - 1);
  const std::uint64_t mid = std::uint64_t{1} << 63;
  return (bits & sign) ? mid - mag : mid + mag;
}

std::uint64_t bits_in(double v, DType t, int& width) {
  switch (t) {
    case DType::F16:
      width = 16;
      return float_to_half_bits(static_cast<float>(v));
    case DType::BF16:
      width = 16;
      return float_to_bf16_bits(static_cast<float>(v));
    case DType::F32: {
      width = 32;
      return f32_to_bits(static_cast<float>(v));
    }
    case DType::F64:
      break;
  }
  width = 64;
  std::uint64_t u;
  std::memcpy(&u, &v, sizeof u);
  return u;
}

// The keys of elements [begin, begin + n) and which are NaN, as ulp_distance sees them.
constexpr std::int64_t kUlpBlock = 1024;
struct UlpKeys {
  std::uint64_t key[kUlpBlock];
  bool nan[kUlpBlock];
};

// Straight from the bits when the tensor is stored in the type the distance is counted in
// (rounding to it changes nothing): NaN is every magnitude above infinity's.
template <class Bits, int kWidth, std::uint64_t kInfinity>
void keys_from_bits(const void* data, std::int64_t begin, std::int64_t n, UlpKeys& k) {
  constexpr std::uint64_t kMagnitude = (std::uint64_t{1} << (kWidth - 1)) - 1;
  const Bits* p = static_cast<const Bits*>(data) + begin;
  for (std::int64_t i = 0; i < n; ++i) {
    std::uint64_t u;
    if constexpr (sizeof(Bits) == 8) {
      std::memcpy(&u, p + i, sizeof u);
    } else {
      u = static_cast<std::uint64_t>(p[i]);
    }
    k.key[i] = ordered_key(u, kWidth);
    k.nan[i] = (u & kMagnitude) > kInfinity;
  }
}

// Floats rounded to the 16-bit type H first, in loops of plain 32-bit integer work the compiler
// vectorizes (the keys are ordered_key's at width 16).
template <class H>
void keys_rounded(const float* v, std::int64_t n, UlpKeys& k) {
  std::uint32_t h[kUlpBlock];
  for (std::int64_t i = 0; i < n; ++i) h[i] = element::store<H>(v[i]).bits;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::uint32_t mag = h[i] & 0x7fffu;
    k.key[i] = (std::uint64_t{1} << 63) +
               static_cast<std::uint64_t>((h[i] & 0x8000u) ? -static_cast<std::int64_t>(mag)
                                                           : static_cast<std::int64_t>(mag));
  }
  for (std::int64_t i = 0; i < n; ++i) k.nan[i] = (f32_to_bits(v[i]) & 0x7fffffffu) > 0x7f800000u;
}

void keys_of(const Tensor& t, DType in, std::int64_t begin, std::int64_t n, UlpKeys& k) {
  if (t.dtype() == in) {
    switch (in) {
      case DType::F16:
        return keys_from_bits<std::uint16_t, 16, 0x7c00>(t.raw(), begin, n, k);
      case DType::BF16:
        return keys_from_bits<std::uint16_t, 16, 0x7f80>(t.raw(), begin, n, k);
      case DType::F32:
        return keys_from_bits<std::uint32_t, 32, 0x7f800000>(t.raw(), begin, n, k);
      case DType::F64:
        return keys_from_bits<std::uint64_t, 64, 0x7ff0000000000000>(t.raw(), begin, n, k);
    }
  }
  if (t.dtype() != DType::F64 && in != DType::F64) {
    // Another of the float formats (a float32 reference beside a float16 candidate): widened to
    // float exactly, then rounded as ulp_distance rounds it.
    float v[kUlpBlock];
    const auto* raw = static_cast<const std::byte*>(t.raw()) + begin * dtype_size(t.dtype());
    convert_elements(raw, t.dtype(), v, DType::F32, n);
    if (in == DType::F16) return keys_rounded<f16>(v, n, k);
    if (in == DType::BF16) return keys_rounded<bf16>(v, n, k);
    return keys_from_bits<std::uint32_t, 32, 0x7f800000>(v, 0, n, k);
  }
  // Rounded as ulp_distance does.
  for (std::int64_t i = 0; i < n; ++i) {
    const double v = t.get(begin + i);
    int width = 64;
    const std::uint64_t bits = bits_in(v, in, width);
    k.key[i] = ordered_key(bits, width);
    k.nan[i] = std::isnan(v);
  }
}

}  // namespace

std::uint64_t ulp_distance(double a, double b, DType t) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b) ? 0 : kOneNan;
  int width = 64;
  const std::uint64_t ba = bits_in(a, t, width);  // sets width
  const std::uint64_t bb = bits_in(b, t, width);
  const std::uint64_t ka = ordered_key(ba, width), kb = ordered_key(bb, width);
  return ka > kb ? ka - kb : kb - ka;
}

std::int64_t first_at_ulp(const Tensor& reference, const Tensor& candidate, DType t,
                          std::uint64_t ulp) {
  const std::int64_t n = std::min(reference.numel(), candidate.numel());
  auto a = std::make_unique<UlpKeys>(), b = std::make_unique<UlpKeys>();
  for (std::int64_t begin = 0; begin < n; begin += kUlpBlock) {
    const std::int64_t m = std::min(kUlpBlock, n - begin);
    keys_of(candidate, t, begin, m, *a);
    keys_of(reference, t, begin, m, *b);
    for (std::int64_t i = 0; i < m; ++i) {
      const std::uint64_t ka = a->key[i], kb = b->key[i];
      const std::uint64_t d = a->nan[i] || b->nan[i] ? (a->nan[i] && b->nan[i] ? 0 : kOneNan)
                                                     : (ka > kb ? ka - kb : kb - ka);
      if (d == ulp) return begin + i;
    }
  }
  return -1;
}

}  // namespace bnscope
