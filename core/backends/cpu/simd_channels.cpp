// Highway bodies of simd.h's per-channel steps between the sweeps: fold_lanes for the channel
// blocks (block_kernels.h), rsqrt_plus for the grads' 1/sqrt(v + eps). Picked at run time like
// simd_kernels.cpp, and as exact as the scalar loops on every target: fold_lanes adds each
// channel's lanes in lane order, and a vector square root and division round as the scalar ones.

#include <cmath>

#include "backends/cpu/simd.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/cpu/simd_channels.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "backends/cpu/simd_vectors-inl.h"

HWY_BEFORE_NAMESPACE();
namespace bnscope::cpu::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
// Eight rows of eight floats (lanes i..i+7 of eight channels) into eight columns: col[j] holds
// lane i+j of each channel, channel k in element k.
HWY_INLINE void Transpose8(const __m256 r[8], __m256 col[8]) {
  __m256 t[8], u[8];
  for (int k = 0; k < 8; k += 2) {
    t[k] = _mm256_unpacklo_ps(r[k], r[k + 1]);
    t[k + 1] = _mm256_unpackhi_ps(r[k], r[k + 1]);
  }
  for (int k = 0; k < 8; k += 4) {
    u[k] = _mm256_shuffle_ps(t[k], t[k + 2], _MM_SHUFFLE(1, 0, 1, 0));
    u[k + 1] = _mm256_shuffle_ps(t[k], t[k + 2], _MM_SHUFFLE(3, 2, 3, 2));
    u[k + 2] = _mm256_shuffle_ps(t[k + 1], t[k + 3], _MM_SHUFFLE(1, 0, 1, 0));
    u[k + 3] = _mm256_shuffle_ps(t[k + 1], t[k + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
  for (int j = 0; j < 4; ++j) {
    col[j] = _mm256_permute2f128_ps(u[j], u[j + 4], 0x20);
    col[j + 4] = _mm256_permute2f128_ps(u[j], u[j + 4], 0x31);
  }
}

// The sums of K runs of eight channels' first `lanes` lanes (a multiple of 8, at least 8), one
// vector each: each channel's lane additions in lane order, eight channels an addition. The K
// runs are K independent chains of additions through the same lanes, not one after the other.
template <int K>
HWY_INLINE void FoldEights(const float* const (&acc)[K], std::int64_t inner, std::int64_t lanes,
                           float* const (&t)[K]) {
  __m256 sum[K];
  for (std::int64_t i = 0; i < lanes; i += 8)
    for (int k = 0; k < K; ++k) {
      __m256 r[8], col[8];
      for (int j = 0; j < 8; ++j) r[j] = _mm256_loadu_ps(acc[k] + j * inner + i);
      Transpose8(r, col);
      int j = 0;
      if (i == 0) sum[k] = col[j++];
      for (; j < 8; ++j) sum[k] = _mm256_add_ps(sum[k], col[j]);
    }
  for (int k = 0; k < K; ++k) _mm256_storeu_ps(t[k], sum[k]);
}
#endif

void FoldLanes(const float* HWY_RESTRICT acc0, const float* HWY_RESTRICT acc1,
               std::int64_t channels, std::int64_t inner, float* HWY_RESTRICT t0,
               float* HWY_RESTRICT t1) {
  std::int64_t c = 0;
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
  // Eight channels at a time through 8x8 transposes, the lanes short of eight after them: side
  // by side alone, the compiler gathered four strided lanes per vector addition. Both arrays,
  // and two groups where there are, go through the lanes together.
  const std::int64_t lanes = inner / 8 * 8;
  if (lanes > 0) {
    for (; c + 16 <= channels; c += 16) {
      const std::int64_t d = c + 8;
      FoldEights<4>({acc0 + c * inner, acc1 + c * inner, acc0 + d * inner, acc1 + d * inner}, inner,
                    lanes, {t0 + c, t1 + c, t0 + d, t1 + d});
      fold_side_by_side(acc0, acc1, c, c + 16, inner, lanes, t0, t1);
    }
    for (; c + 8 <= channels; c += 8) {
      FoldEights<2>({acc0 + c * inner, acc1 + c * inner}, inner, lanes, {t0 + c, t1 + c});
      fold_side_by_side(acc0, acc1, c, c + 8, inner, lanes, t0, t1);
    }
  }
#endif
  fold_side_by_side(acc0, acc1, c, channels, inner, 0, t0, t1);
}

// Per channel, after the reduce pass, on one thread while the others wait: in vectors.
void RsqrtPlus(const double* HWY_RESTRICT v, double eps, double* HWY_RESTRICT out, std::int64_t n) {
  std::int64_t i = 0;
#if HWY_TARGET != HWY_SCALAR
  const hn::ScalableTag<double> dd;
  const std::int64_t N = static_cast<std::int64_t>(hn::Lanes(dd));
  const auto e = hn::Set(dd, eps), one = hn::Set(dd, 1.0);
  for (; i + N <= n; i += N)
    hn::StoreU(hn::Div(one, hn::Sqrt(hn::Add(hn::LoadU(dd, v + i), e))), dd, out + i);
#endif
  for (; i < n; ++i) out[i] = 1.0 / std::sqrt(v[i] + eps);
}

}  // namespace HWY_NAMESPACE
}  // namespace bnscope::cpu::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace bnscope::cpu::simd {

HWY_EXPORT(FoldLanes);
HWY_EXPORT(RsqrtPlus);

void fold_lanes(const float* acc0, const float* acc1, std::int64_t channels, std::int64_t inner,
                float* t0, float* t1) {
  HWY_DYNAMIC_DISPATCH(FoldLanes)(acc0, acc1, channels, inner, t0, t1);
}

void rsqrt_plus(const double* v, double eps, double* out, std::int64_t n) {
  HWY_DYNAMIC_DISPATCH(RsqrtPlus)(v, eps, out, n);
}

}  // namespace bnscope::cpu::simd
#endif
