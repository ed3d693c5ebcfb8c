#include "tensor/convert_elements.h"

#include <type_traits>

#include "tensor/element_convert.h"
#include "tensor/parallel.h"
#include "tensor/tensor.h"
#include "tensor/vec_load.h"

namespace bnscope {

namespace {

// Below this a conversion is a few microseconds: not worth waking the pool.
constexpr std::int64_t kPerPart = std::int64_t{1} << 20;

template <class To, class From>
To convert_one(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (std::is_same_v<To, float> && std::is_same_v<From, bf16>) {
    // Quieted, as a NaN passed through a double is: the quiet bit of a bfloat16 is 0x0040.
    const bool nan = (v.bits & 0x7fffu) > 0x7f80u;
    return bits_to_f32(static_cast<std::uint32_t>(v.bits | (nan ? 0x40u : 0u)) << 16);
  } else if constexpr (std::is_same_v<To, double>) {
    return static_cast<double>(element::load(v));
  } else if constexpr (std::is_same_v<From, double>) {
    return element::store<To>(static_cast<float>(v));
  } else {
    return element::store<To>(element::load(v));
  }
}

template <class To, class From>
[[gnu::always_inline]] inline void convert_loop(const From* __restrict src, To* __restrict dst,
                                                std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) dst[i] = convert_one<To>(src[i]);
}

// The same loop in AVX2 where the CPU has it (twice the lanes of the baseline build's; no FMA,
// so the same bits).
template <class To, class From>
void convert_baseline(const From* src, To* dst, std::int64_t n) {
  convert_loop(src, dst, n);
}
#if defined(__x86_64__) && defined(__GNUC__)
template <class To, class From>
[[gnu::target("avx2")]] void convert_avx2(const From* src, To* dst, std::int64_t n) {
  convert_loop(src, dst, n);
}
#endif

template <class To, class From>
void convert_range(const From* src, To* dst, std::int64_t n, int max_isa) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (vec_isa_at_most(max_isa) != VecIsa::Baseline) return convert_avx2(src, dst, n);
#else
  (void)max_isa;
#endif
  convert_baseline(src, dst, n);
}

}  // namespace

void convert_elements(const void* src, DType from, void* dst, DType to, std::int64_t n,
                      int max_isa) {
  if (n <= 0) return;
  visit_dtype(from, [&](auto from_tag) {
    using From = typename decltype(from_tag)::type;
    visit_dtype(to, [&](auto to_tag) {
      using To = typename decltype(to_tag)::type;
      const From* s = static_cast<const From*>(src);
      To* d = static_cast<To*>(dst);
      parallel_for(n, parallel_parts(n, kPerPart), [&](int, std::int64_t begin, std::int64_t end) {
        convert_range(s + begin, d + begin, end - begin, max_isa);
      });
    });
  });
}

const float* floats_of(const Tensor& t, std::int64_t begin, std::int64_t n, float* buf) {
  if (t.dtype() == DType::F32) return static_cast<const float*>(t.raw()) + begin;
  const auto* raw = static_cast<const std::byte*>(t.raw()) + begin * dtype_size(t.dtype());
  convert_elements(raw, t.dtype(), buf, DType::F32, n);
  return buf;
}

}  // namespace bnscope
