#include "analysis/ulp.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>

#include "tensor/convert_elements.h"
#include "tensor/element_convert.h"
#include "tensor/vec_load.h"

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
  // Another type (a float32 reference beside a float16 candidate): rounded as ulp_distance does.
  for (std::int64_t i = 0; i < n; ++i) {
    const double v = t.get(begin + i);
    int width = 64;
    const std::uint64_t bits = bits_in(v, in, width);
    k.key[i] = ordered_key(bits, width);
    k.nan[i] = std::isnan(v);
  }
}

// ulp_distance of two floats counted in H (float, or f16 or bf16 to which both are rounded), in
// 32-bit integers: every distance between non-NaN values fits below kOneNan32, which stands for
// NaN on one side.
constexpr std::uint32_t kOneNan32 = 0xffffffffu;
template <class H>
std::uint32_t distance32(float x, float y) {
  std::uint32_t bx, by, mid, sign;
  if constexpr (std::is_same_v<H, float>) {
    bx = f32_to_bits(x), by = f32_to_bits(y), mid = 0x80000000u, sign = 0x80000000u;
  } else {
    bx = element::store<H>(x).bits, by = element::store<H>(y).bits, mid = 0x8000u, sign = 0x8000u;
  }
  const std::uint32_t kx = (bx & sign) ? mid - (bx & (sign - 1)) : mid + (bx & (sign - 1));
  const std::uint32_t ky = (by & sign) ? mid - (by & (sign - 1)) : mid + (by & (sign - 1));
  const bool nan_x = (f32_to_bits(x) & 0x7fffffffu) > 0x7f800000u;
  const bool nan_y = (f32_to_bits(y) & 0x7fffffffu) > 0x7f800000u;
  const std::uint32_t d = kx > ky ? kx - ky : ky - kx;
  return nan_x || nan_y ? (nan_x && nan_y ? 0u : kOneNan32) : d;
}

template <class H>
[[gnu::always_inline]] inline void distance_loop(const float* a, const float* b, std::uint32_t* d,
                                                 std::int64_t m) {
  for (std::int64_t i = 0; i < m; ++i) d[i] = distance32<H>(a[i], b[i]);
}
template <class H>
void distances_baseline(const float* a, const float* b, std::uint32_t* d, std::int64_t m) {
  distance_loop<H>(a, b, d, m);
}
#if defined(__x86_64__) && defined(__GNUC__)
// AVX2 where the CPU has it: twice the lanes, and no FMA, so the same roundings.
template <class H>
[[gnu::target("avx2")]] void distances_avx2(const float* a, const float* b, std::uint32_t* d,
                                            std::int64_t m) {
  distance_loop<H>(a, b, d, m);
}
#endif
template <class H>
void distances(const float* a, const float* b, std::uint32_t* d, std::int64_t m, VecIsa isa) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (isa != VecIsa::Baseline) return distances_avx2<H>(a, b, d, m);
#else
  (void)isa;
#endif
  distances_baseline<H>(a, b, d, m);
}

// first_at_ulp for tensors of the float formats (float64 on neither side): a block's distances in
// one loop the compiler vectorizes, then the search.
template <class H>
std::int64_t first_at_ulp_floats(const Tensor& reference, const Tensor& candidate, std::int64_t n,
                                 std::uint64_t ulp, VecIsa isa) {
  if (ulp != kOneNan && ulp >= kOneNan32) return -1;  // no such distance in 32 bits
  const std::uint32_t want = ulp == kOneNan ? kOneNan32 : static_cast<std::uint32_t>(ulp);
  float a_buf[kUlpBlock], b_buf[kUlpBlock];
  std::uint32_t d[kUlpBlock];
  for (std::int64_t begin = 0; begin < n; begin += kUlpBlock) {
    const std::int64_t m = std::min(kUlpBlock, n - begin);
    const float* a = floats_of(candidate, begin, m, a_buf);
    const float* b = floats_of(reference, begin, m, b_buf);
    distances<H>(a, b, d, m, isa);
    for (std::int64_t i = 0; i < m; ++i)
      if (d[i] == want) return begin + i;
  }
  return -1;
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
                          std::uint64_t ulp, int max_isa) {
  const std::int64_t n = std::min(reference.numel(), candidate.numel());
  if (reference.dtype() != DType::F64 && candidate.dtype() != DType::F64) {
    const VecIsa isa = vec_isa_at_most(max_isa);
    if (t == DType::F16) return first_at_ulp_floats<f16>(reference, candidate, n, ulp, isa);
    if (t == DType::BF16) return first_at_ulp_floats<bf16>(reference, candidate, n, ulp, isa);
    if (t == DType::F32) return first_at_ulp_floats<float>(reference, candidate, n, ulp, isa);
  }
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
