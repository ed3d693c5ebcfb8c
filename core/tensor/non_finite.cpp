#include "tensor/non_finite.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "tensor/parallel.h"

namespace bnscope {

namespace {

// A value is NaN or Inf exactly when its exponent field is all ones; testing the bits instead of
// converting every 16-bit value to float keeps this scan, which ends every run, near memory
// speed. Counting a block in the element's own width lets the compiler vectorize the loop
// without widening every compare to 64 bits; 2^15 elements fit even a 16-bit counter.
template <class Bits>
std::int64_t count_all_ones(const void* data, std::int64_t n, Bits exponent) {
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

std::int64_t count_range(const Tensor& t, std::int64_t begin, std::int64_t n) {
  const void* d = static_cast<const unsigned char*>(t.raw()) +
                  begin * static_cast<std::int64_t>(dtype_size(t.dtype()));
  switch (t.dtype()) {
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

}  // namespace

// Large tensors are counted in parts on every core: the count is a sum of integers, the same
// whatever the split.
std::int64_t count_non_finite(const Tensor& t) {
  const int parts = parallel_parts(t.numel(), std::int64_t{1} << 20);
  std::vector<std::int64_t> counts(static_cast<std::size_t>(parts), 0);
  parallel_for(t.numel(), parts, [&](int k, std::int64_t b, std::int64_t e) {
    counts[static_cast<std::size_t>(k)] = count_range(t, b, e - b);
  });
  std::int64_t total = 0;
  for (std::int64_t c : counts) total += c;
  return total;
}

}  // namespace bnscope
