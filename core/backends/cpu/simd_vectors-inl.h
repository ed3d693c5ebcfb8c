// Per-target building blocks of the cpu backend's Highway files, included once per target (a
// per-target include guard, as Highway's own -inl headers): f16/bf16 loads and stores that give
// convert.h's bits (Highway 1.0's bf16 DemoteTo truncates, so it is not used; F16C stores after
// NaN lanes are mapped to the quiet NaN TensorFlow writes), stores of two vectors at once,
// rounding to half in registers, the prefetch policy, the walk of a plane's runs, the dispatch
// on element type.

#if defined(BNSCOPE_CPU_SIMD_VECTORS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef BNSCOPE_CPU_SIMD_VECTORS_INL_H_
#undef BNSCOPE_CPU_SIMD_VECTORS_INL_H_
#else
#define BNSCOPE_CPU_SIMD_VECTORS_INL_H_
#endif

#include <hwy/cache_control.h>
#include <hwy/highway.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "backends/cpu/convert.h"
#include "backends/cpu/line_vector.h"
#include "backends/cpu/simd.h"

#if HWY_ARCH_X86
#include <xmmintrin.h>
#endif

HWY_BEFORE_NAMESPACE();
namespace bnscope::cpu::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;
using VF = hn::Vec<DF>;
using DU = hn::RebindToUnsigned<DF>;
using DI = hn::RebindToSigned<DF>;
using DH = hn::Rebind<std::uint16_t, DF>;  // one 16-bit element per float lane

HWY_INLINE VF load_vec(DF d, const float* p) {
  return hn::LoadU(d, p);
}
HWY_INLINE VF load_vec(DF d, const bf16* p) {
  const DU du;
  const auto w = hn::PromoteTo(du, hn::LoadU(DH(), reinterpret_cast<const std::uint16_t*>(p)));
  return hn::BitCast(d, hn::ShiftLeft<16>(w));
}
HWY_INLINE VF load_vec(DF d, const f16* p) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
  const hn::Rebind<hwy::float16_t, DF> dh;
  return hn::PromoteTo(d, hn::LoadU(dh, reinterpret_cast<const hwy::float16_t*>(p)));
#else
  const DU du;
  const DI di;
  const auto w = hn::ShiftLeft<16>(
      hn::PromoteTo(du, hn::LoadU(DH(), reinterpret_cast<const std::uint16_t*>(p))));
  const auto sign = hn::And(w, hn::Set(du, 0x80000000u));
  const auto two_w = hn::Add(w, w);
  const VF normal =
      hn::Mul(hn::BitCast(d, hn::Add(hn::ShiftRight<4>(two_w), hn::Set(du, 0xE0u << 23))),
              hn::Set(d, 0x1.0p-112f));
  const VF subnormal = hn::Sub(
      hn::BitCast(d, hn::Or(hn::ShiftRight<17>(two_w), hn::Set(du, 126u << 23))), hn::Set(d, 0.5f));
  const auto is_sub = hn::Lt(hn::BitCast(di, hn::ShiftRight<1>(two_w)), hn::Set(di, 1 << 26));
  const VF mag = hn::IfThenElse(hn::RebindMask(d, is_sub), subnormal, normal);
  return hn::Or(mag, hn::BitCast(d, sign));
#endif
}

HWY_INLINE void store_u16(hn::Vec<DH> v, std::uint16_t* p, bool nt) {
  const DH dh;
  // On SSE4 these are 8-byte half registers, and Highway streams them with a 16-byte movntdq,
  // which faults on the 8-byte-aligned addresses that pass the check below.
  constexpr bool kFullRegister = hn::MaxLanes(DH()) * 2 >= 16;
  if (kFullRegister && nt && (reinterpret_cast<std::uintptr_t>(p) % (hn::Lanes(dh) * 2)) == 0)
    hn::Stream(v, dh, p);
  else
    hn::StoreU(v, dh, p);
}

// Writes 16-bit patterns h (held in 32-bit lanes, each <= 0xFFFF).
template <class VU>
HWY_INLINE void store_bits16(VU h, std::uint16_t* p, bool nt) {
  store_u16(hn::DemoteTo(DH(), hn::BitCast(DI(), h)), p, nt);
}

template <bool CheckNaN = true>  // float keeps its NaN payloads either way
HWY_INLINE void store_vec(VF v, float* p, bool nt) {
  const DF d;
  if (nt && (reinterpret_cast<std::uintptr_t>(p) % (hn::Lanes(d) * 4)) == 0)
    hn::Stream(v, d, p);
  else
    hn::StoreU(v, d, p);
}
// v rounded to nearest even bfloat16, the pattern in the high half of each 32-bit lane (the low
// half is left over from the rounding); right for every lane but NaN (bf16_bits).
HWY_INLINE hn::Vec<DU> bf16_rounded_high(VF v) {
  const DU du;
  const auto u = hn::BitCast(du, v);
  const auto lsb = hn::And(hn::ShiftRight<16>(u), hn::Set(du, 1u));
  return hn::Add(hn::Add(u, hn::Set(du, 0x7fffu)), lsb);
}
// The same pattern in the low half of each 32-bit lane.
HWY_INLINE hn::Vec<DU> bf16_rounded(VF v) {
  return hn::ShiftRight<16>(bf16_rounded_high(v));
}
// The bfloat16 patterns of v (convert.h's store<bf16>), one in the low half of each 32-bit lane.
HWY_INLINE hn::Vec<DU> bf16_bits(VF v) {
  const DU du;
  const auto nan = hn::Or(hn::ShiftRight<16>(hn::BitCast(du, v)), hn::Set(du, 0x40u));
  return hn::IfThenElse(hn::RebindMask(du, hn::IsNaN(v)), nan, bf16_rounded(v));
}
// CheckNaN false: the caller knows every NaN among the stored values is the default NaN of an
// invalid operation (simd.h: Sweep::nan_free), whose plain rounding already gives convert.h's
// pattern, so the NaN lanes' select is left out.
template <bool CheckNaN = true>
HWY_INLINE void store_vec(VF v, bf16* p, bool nt) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  // simd.h: bf16_instruction, cheaper than the integer rounding and NaN select. The instruction
  // is in asm: the target it needs is not Highway's.
  if (bf16_instruction && !_mm512_fpclass_ps_mask(v.raw, 0x20 /* subnormal */)) {
    __m256i h;
    asm("vcvtneps2bf16 %1, %0" : "=v"(h) : "v"(v.raw));
    store_u16(hn::Vec<DH>{h}, reinterpret_cast<std::uint16_t*>(p), nt);
    return;
  }
#endif
  store_bits16(CheckNaN ? bf16_bits(v) : bf16_rounded(v), reinterpret_cast<std::uint16_t*>(p), nt);
}

#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
// The float16 patterns of v by F16C (convert.h's store<f16>).
HWY_INLINE hn::Vec<DH> f16_bits(VF v) {
  const DF d;
  const DU du;
  // F16C rounds to nearest even exactly as convert.h does; it differs only on NaN, whose payload
  // it keeps. A NaN lane is first replaced by the float quiet NaN of its sign, which F16C turns
  // into convert.h's canonical 0x7E00 (with the sign).
  const VF quiet = hn::Or(hn::And(v, hn::BitCast(d, hn::Set(du, 0x80000000u))),
                          hn::BitCast(d, hn::Set(du, 0x7FC00000u)));
  const VF clean = hn::IfThenElse(hn::IsNaN(v), quiet, v);
  const hn::Rebind<hwy::float16_t, DF> dh;
  return hn::BitCast(DH(), hn::DemoteTo(dh, clean));
}
#endif

template <bool CheckNaN = true>
HWY_INLINE void store_vec(VF v, f16* p, bool nt) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
  const hn::Rebind<hwy::float16_t, DF> dh;
  store_u16(CheckNaN ? f16_bits(v) : hn::BitCast(DH(), hn::DemoteTo(dh, v)),
            reinterpret_cast<std::uint16_t*>(p), nt);
#else
  const DF d;
  const DU du;
  const DI di;
  const auto w = hn::BitCast(du, v);
  const auto sign = hn::And(w, hn::Set(du, 0x80000000u));
  const auto abs = hn::BitCast(di, hn::And(w, hn::Set(du, 0x7fffffffu)));
  VF base = hn::Mul(hn::Mul(hn::BitCast(d, abs), hn::Set(d, 0x1.0p+112f)), hn::Set(d, 0x1.0p-110f));
  const auto exp = hn::Max(hn::And(abs, hn::Set(di, 0x7F800000)), hn::Set(di, 0x38800000));
  base = hn::Add(hn::BitCast(d, hn::Add(exp, hn::Set(di, 0x07800000))), base);
  const auto bits = hn::BitCast(du, base);
  const auto nonsign = hn::Add(hn::And(hn::ShiftRight<13>(bits), hn::Set(du, 0x7C00u)),
                               hn::And(bits, hn::Set(du, 0x0FFFu)));
  const auto is_nan = hn::Gt(abs, hn::Set(di, 0x7F800000));
  const auto h = hn::Or(hn::ShiftRight<16>(sign),
                        hn::IfThenElse(hn::RebindMask(du, is_nan), hn::Set(du, 0x7E00u), nonsign));
  store_bits16(h, reinterpret_cast<std::uint16_t*>(p), nt);
#endif
}

// Two vectors of 16-bit results, v0 then v1, to p with one full-width store. On AVX2 a vector's
// results fill half a register: bfloat16 takes one unsigned pack of both vectors and one lane
// permute where one vector at a time takes a pack and a permute each, float16 one 128-bit insert,
// and a pair writes 32 bytes in one (non-temporal) store instead of two of 16: the 16-bit write
// sweeps are short of memory by their instructions on AVX2.
#if HWY_TARGET == HWY_AVX2
HWY_INLINE void store_256(__m256i v, void* p, bool nt) {
  auto* dst = static_cast<__m256i*>(p);
  if (nt && reinterpret_cast<std::uintptr_t>(p) % 32 == 0)
    _mm256_stream_si256(dst, v);
  else
    _mm256_storeu_si256(dst, v);
}
// Whether neither v0 nor v1 holds a NaN: one unordered compare of the two.
HWY_INLINE bool no_nan(VF v0, VF v1) {
  const __m256 nan = _mm256_cmp_ps(v0.raw, v1.raw, _CMP_UNORD_Q);
  return _mm256_testz_ps(nan, nan);
}
// bf16_bits of two vectors, packed: lane k of v0 to 16-bit lane k of each 128-bit half's low
// part, v1's to the high part. One unordered compare finds a NaN in either vector, and only then
// do the lanes take bf16_bits' NaN select: without a NaN, rounding is four integer operations a
// vector where the select added three.
template <bool CheckNaN>
HWY_INLINE __m256i bf16_pack(VF v0, VF v1) {
  if (!CheckNaN || HWY_LIKELY(no_nan(v0, v1)))
    return _mm256_packus_epi32(bf16_rounded(v0).raw, bf16_rounded(v1).raw);
  return _mm256_packus_epi32(bf16_bits(v0).raw, bf16_bits(v1).raw);
}
template <bool CheckNaN = true>
HWY_INLINE void store_pair(VF v0, VF v1, bf16* p, bool nt) {
  store_256(_mm256_permute4x64_epi64(bf16_pack<CheckNaN>(v0, v1), 0xD8), p, nt);
}
// f16_bits of two vectors, v0's in the low half: as bf16_pack, the NaN lanes' replacement only
// where an unordered compare finds a NaN in either vector.
template <bool CheckNaN>
HWY_INLINE __m256i f16_pack(VF v0, VF v1) {
  constexpr int kNearestEven = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
  if (!CheckNaN || HWY_LIKELY(no_nan(v0, v1)))
    return _mm256_inserti128_si256(_mm256_castsi128_si256(_mm256_cvtps_ph(v0.raw, kNearestEven)),
                                   _mm256_cvtps_ph(v1.raw, kNearestEven), 1);
  return _mm256_inserti128_si256(_mm256_castsi128_si256(f16_bits(v0).raw), f16_bits(v1).raw, 1);
}
template <bool CheckNaN = true>
HWY_INLINE void store_pair(VF v0, VF v1, f16* p, bool nt) {
  store_256(f16_pack<CheckNaN>(v0, v1), p, nt);
}

#endif

template <bool CheckNaN = true, class T>
HWY_INLINE void store_pair(VF v0, VF v1, T* p, bool nt) {
  store_vec<CheckNaN>(v0, p, nt);
  store_vec<CheckNaN>(v1, p + hn::Lanes(DF()), nt);
}

// Whether the affine loops store two vectors at a time (store_pair): 16-bit outputs on AVX2.
template <class T>
constexpr bool kPairs = HWY_TARGET == HWY_AVX2 && !std::is_same_v<T, float>;

// Rounds every lane to half and back: one F16C conversion each way, round to nearest even as
// convert.h's store<f16> (a NaN stays a NaN; its payload, which no output keeps, may differ).
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
HWY_INLINE VF half_round(VF v) {
  const DF d;
  const hn::Rebind<hwy::float16_t, DF> dh;
  return hn::PromoteTo(d, hn::DemoteTo(dh, v));
}
#endif

// Software prefetch of both inputs 2 KiB ahead (past the end is harmless): the hardware
// prefetchers alone leave a core short of memory parallelism on 16-bit data. Into L2 unless
// ToL1: only the register-row sweep, whose L1 holds nothing of its own, runs faster prefetching
// into L1 (docs/measurements/cpu-kernel-notes.md).
template <bool ToL1 = false, class T>
HWY_INLINE void prefetch_ahead(const T* a, const T* b) {
  constexpr std::size_t kAhead = 2048 / sizeof(T);
#if HWY_ARCH_X86
  constexpr auto hint = ToL1 ? _MM_HINT_T0 : _MM_HINT_T1;
  _mm_prefetch(reinterpret_cast<const char*>(a + kAhead), hint);
  _mm_prefetch(reinterpret_cast<const char*>(b + kAhead), hint);
#else
  hwy::Prefetch(a + kAhead);
  hwy::Prefetch(b + kAhead);
#endif
}

// prefetch_ahead where the sweep asks for it (Sweep::prefetch).
template <bool ToL1 = false, class T>
HWY_INLINE void prefetch_if(bool on, const T* a, const T* b) {
  if (on) prefetch_ahead<ToL1>(a, b);
}

// Vectors of T that load_vec reads per 64-byte line, at least 1 (from MaxLanes: never more than
// fill a line on any width the target may run at). A loop that prefetches once per line takes
// this many vectors per step; a prefetch that starts inside a line covers that line, and the
// next starts within 64 bytes of it, so no line is missed.
template <class T>
constexpr std::int64_t vectors_per_line() {
  constexpr std::size_t bytes = hn::MaxLanes(DF()) * sizeof(T);
  return bytes >= 64 ? 1 : static_cast<std::int64_t>(64 / bytes);
}

// Calls f(sweep of one run, its length) for each run of `runs`.
template <class T, class F>
HWY_INLINE void for_runs(const Sweep& s, const Runs& runs, F f) {
  Sweep r = s;
  std::int64_t left = runs.count, off = 0, i = runs.i0;
  while (left > 0) {
    const std::int64_t n = std::min(runs.inner - i, left);
    r.a = static_cast<const T*>(s.a) + off;
    r.b = static_cast<const T*>(s.b) + off;
    if (s.out) r.out = static_cast<T*>(s.out) + off;
    f(r, n);
    left -= n;
    off += runs.stride - i;
    i = 0;
  }
}

template <class T>
struct Tag {
  using type = T;
};

// Calls f(Tag<T>{}) for the element type e names.
template <class F>
HWY_INLINE void by_elem(Elem e, F&& f) {
  switch (e) {
    case Elem::F32:
      f(Tag<float>{});
      break;
    case Elem::F16:
      f(Tag<f16>{});
      break;
    case Elem::BF16:
      f(Tag<bf16>{});
      break;
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace bnscope::cpu::simd
HWY_AFTER_NAMESPACE();

#endif  // BNSCOPE_CPU_SIMD_VECTORS_INL_H_
