#include "tensor/non_finite.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "tensor/parallel.h"
#include "tensor/vec_load.h"

namespace bnscope {

namespace {

// A value is NaN or Inf exactly when its exponent field is all ones; testing the bits instead of
// converting every 16-bit value to float keeps this scan, which ends every run, near memory
// speed. Counting a block in the element's own width lets the compiler vectorize the loop
// without widening every compare to 64 bits; 2^15 elements fit even a 16-bit counter.
template <class Bits>
[[gnu::always_inline]] inline std::int64_t count_all_ones(const void* data, std::int64_t n,
                                                          Bits exponent) {
  constexpr std::int64_t kBlock = std::int64_t{1} << 15;
  const auto* p = static_cast<const unsigned char*>(data);
  std::int64_t count = 0;
  for (std::int64_t start = 0; start < n; start += kBlock) {
    const std::int64_t end = std::min(n, start + kBlock);
    Bits block = 0;
    for (std::int64_t i = start; i < end; ++i) {
      Bits b;
      std::memcpy(&b, p + i * static_cast<std::int64_t>(sizeof(Bits)), sizeof b);
      block = static_cast<Bits>(block + ((b & exponent) == exponent));
    }
    count += static_cast<std::int64_t>(block);
  }
  return count;
}

[[gnu::always_inline]] inline std::int64_t count_by_dtype(DType dtype, const void* d,
                                                          std::int64_t n) {
  switch (dtype) {
    case DType::F16:
      return count_all_ones<std::uint16_t>(d, n, 0x7C00u);
    case DType::BF16:
      return count_all_ones<std::uint16_t>(d, n, 0x7F80u);
    case DType::F32:
      return count_all_ones<std::uint32_t>(d, n, 0x7F800000u);
    case DType::F64:
      return count_all_ones<std::uint64_t>(d, n, 0x7FF0000000000000ull);
  }
  return 0;
}

// The same loop for AVX2, picked when the CPU has it: a reader counts each piece it has just read
// while the piece is in cache, where the baseline build's 16-byte compares, not memory, would set
// the pace (float32 in L2 on the Zen 4: 51 GB/s baseline, 96 GB/s AVX2; an AVX-512 clone's mask
// compares gave 76, tests/bench/checksum_bench.cpp).
std::int64_t count_baseline(DType dtype, const void* d, std::int64_t n) {
  return count_by_dtype(dtype, d, n);
}
#if defined(__x86_64__) && defined(__GNUC__)
[[gnu::target("avx2")]] std::int64_t count_avx2(DType dtype, const void* d, std::int64_t n) {
  return count_by_dtype(dtype, d, n);
}
#endif

// The largest magnitude pattern of n values that is not a NaN's: magnitudes order as their
// patterns do, and every NaN's lies above Inf's; a plain integer maximum, which vectorizes (with
// unsigned maxima from AVX2 on).
template <class Bits>
[[gnu::always_inline]] inline Bits max_magnitude_bits(const void* data, std::int64_t n,
                                                      Bits magnitude, Bits infinity) {
  const auto* p = static_cast<const unsigned char*>(data);
  Bits m = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    Bits b;
    std::memcpy(&b, p + i * static_cast<std::int64_t>(sizeof(Bits)), sizeof b);
    b = static_cast<Bits>(b & magnitude);
    // A mask, not a select: GCC 12 vectorizes the maximum only so.
    const Bits keep = static_cast<Bits>(Bits{0} - static_cast<Bits>(b <= infinity));
    m = std::max(m, static_cast<Bits>(b & keep));
  }
  return m;
}

[[gnu::always_inline]] inline double max_magnitude_by_dtype(DType dtype, const void* d,
                                                            std::int64_t n) {
  switch (dtype) {
    case DType::F16:
      return half_bits_to_float(max_magnitude_bits<std::uint16_t>(d, n, 0x7fffu, 0x7c00u));
    case DType::BF16:
      return bf16_bits_to_float(max_magnitude_bits<std::uint16_t>(d, n, 0x7fffu, 0x7f80u));
    case DType::F32:
      return bits_to_f32(max_magnitude_bits<std::uint32_t>(d, n, 0x7fffffffu, 0x7f800000u));
    case DType::F64:
      break;
  }
  const std::uint64_t b =
      max_magnitude_bits<std::uint64_t>(d, n, 0x7fffffffffffffffull, 0x7ff0000000000000ull);
  double v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}

double max_magnitude_baseline(DType dtype, const void* d, std::int64_t n) {
  return max_magnitude_by_dtype(dtype, d, n);
}
#if defined(__x86_64__) && defined(__GNUC__)
[[gnu::target("avx2")]] double max_magnitude_avx2(DType dtype, const void* d, std::int64_t n) {
  return max_magnitude_by_dtype(dtype, d, n);
}
#endif

}  // namespace

double max_magnitude(DType dtype, const void* data, std::int64_t n, int max_isa) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (vec_isa_at_most(max_isa) != VecIsa::Baseline) return max_magnitude_avx2(dtype, data, n);
#else
  (void)max_isa;
#endif
  return max_magnitude_baseline(dtype, data, n);
}

std::int64_t count_non_finite(DType dtype, const void* data, std::int64_t n, int max_isa) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (vec_isa_at_most(max_isa) != VecIsa::Baseline) return count_avx2(dtype, data, n);
#else
  (void)max_isa;
#endif
  return count_baseline(dtype, data, n);
}

// Large tensors are counted in parts on every core: the count is a sum of integers, the same
// whatever the split.
std::int64_t count_non_finite(const Tensor& t) {
  const int parts = parallel_parts(t.numel(), std::int64_t{1} << 20);
  std::vector<std::int64_t> counts(static_cast<std::size_t>(parts), 0);
  const auto size = static_cast<std::int64_t>(dtype_size(t.dtype()));
  parallel_for(t.numel(), parts, [&](int k, std::int64_t b, std::int64_t e) {
    counts[static_cast<std::size_t>(k)] =
        count_non_finite(t.dtype(), static_cast<const unsigned char*>(t.raw()) + b * size, e - b);
  });
  std::int64_t total = 0;
  for (std::int64_t c : counts) total += c;
  return total;
}

double max_magnitude(const Tensor& t) {
  const int parts = parallel_parts(t.numel(), std::int64_t{1} << 20);
  std::vector<double> maxima(static_cast<std::size_t>(parts), 0.0);
  const auto size = static_cast<std::int64_t>(dtype_size(t.dtype()));
  parallel_for(t.numel(), parts, [&](int k, std::int64_t b, std::int64_t e) {
    maxima[static_cast<std::size_t>(k)] =
        max_magnitude(t.dtype(), static_cast<const unsigned char*>(t.raw()) + b * size, e - b);
  });
  return *std::max_element(maxima.begin(), maxima.end());
}

}  // namespace bnscope
