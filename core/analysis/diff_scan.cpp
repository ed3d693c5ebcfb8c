// Highway body of diff_scan.h, compiled once per x86-64 target (foreach_target) and picked at run
// time, as the cpu backend's loops are. Built with -ffp-contract=off (deps.cmake): the
// tolerance a*b+c must round twice, as the scalar loop's does.

#include "analysis/diff_scan.h"

#include <algorithm>
#include <cstddef>
#include <limits>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "analysis/diff_scan.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace bnscope::diff_scan {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DD = hn::ScalableTag<double>;
using VD = hn::Vec<DD>;
using DU = hn::RebindToUnsigned<DD>;
using VU = hn::Vec<DU>;

// std::max(acc, x) lane by lane, only where `take` holds: x replaces acc only when acc < x.
template <class V, class M>
HWY_INLINE V max_where(M take, V acc, V x) {
  return hn::IfThenElse(hn::And(take, hn::Lt(acc, x)), x, acc);
}

// The order-preserving integer of a float's bits (diff.cpp's ordered_key at width 32).
HWY_INLINE VU ordered_key(VU bits) {
  const DU du;
  const VU mid = hn::Set(du, std::uint64_t{1} << 63);
  const VU mag = hn::And(bits, hn::Set(du, 0x7fffffffull));
  const auto negative = hn::Ne(hn::And(bits, hn::Set(du, 0x80000000ull)), hn::Zero(du));
  return hn::IfThenElse(negative, hn::Sub(mid, mag), hn::Add(mid, mag));
}

// The float16 patterns of v, rounded to nearest even as tensor/element_convert.h's store<f16>
// rounds (the same scalings, whose roundings give the bits: this file is built without
// contraction), in 32-bit lanes. NaN lanes are left to the caller, which counts no distance there.
template <class DF>
HWY_INLINE hn::Vec<hn::RebindToUnsigned<DF>> half_bits(DF df, hn::Vec<DF> v) {
  const hn::RebindToUnsigned<DF> du;
  const hn::RebindToSigned<DF> di;
  const auto w = hn::BitCast(du, v);
  const auto sign = hn::And(w, hn::Set(du, 0x80000000u));
  const auto abs = hn::And(w, hn::Set(du, 0x7fffffffu));
  auto base =
      hn::Mul(hn::Mul(hn::BitCast(df, abs), hn::Set(df, 0x1.0p+112f)), hn::Set(df, 0x1.0p-110f));
  const auto exp = hn::BitCast(du, hn::Max(hn::BitCast(di, hn::And(abs, hn::Set(du, 0x7f800000u))),
                                           hn::Set(di, 0x38800000)));
  base = hn::Add(hn::BitCast(df, hn::Add(exp, hn::Set(du, 0x07800000u))), base);
  const auto bits = hn::BitCast(du, base);
  const auto nonsign = hn::Add(hn::And(hn::ShiftRight<13>(bits), hn::Set(du, 0x7c00u)),
                               hn::And(bits, hn::Set(du, 0x0fffu)));
  return hn::Or(hn::ShiftRight<16>(sign), nonsign);
}

// The bfloat16 patterns of v, rounded to nearest even as store<bf16> rounds (NaN lanes aside).
template <class DF>
HWY_INLINE hn::Vec<hn::RebindToUnsigned<DF>> bf16_bits(DF df, hn::Vec<DF> v) {
  const hn::RebindToUnsigned<DF> du;
  const auto u = hn::BitCast(du, v);
  const auto odd = hn::And(hn::ShiftRight<16>(u), hn::Set(du, 1u));
  return hn::ShiftRight<16>(hn::Add(hn::Add(u, hn::Set(du, 0x7fffu)), odd));
}

// A 16-bit sign-magnitude pattern's place on a line where adjacent values are adjacent and +0
// and -0 meet (diff.cpp's ordered_key at width 16, offset by 0x8000 instead of 2^63).
template <class DU>
HWY_INLINE hn::Vec<DU> ordered_key16(DU du, hn::Vec<DU> h) {
  const auto mag = hn::And(h, hn::Set(du, 0x7fffu));
  const auto negative = hn::Ne(hn::And(h, hn::Set(du, 0x8000u)), hn::Zero(du));
  return hn::IfThenElse(negative, hn::Sub(hn::Set(du, 0x8000u), mag),
                        hn::Add(hn::Set(du, 0x8000u), mag));
}

std::int64_t Lanes() {
  return static_cast<std::int64_t>(hn::Lanes(DD()));
}

// The histogram's finite positive errors, bin by bin without memory traffic per element: each
// lane's bin (the number of decade edges at or below its error, so 0 .. kEdges) picks one of
// sixteen 8-bit fields, eight in each of two 64-bit lanes, and adds one there. Fields are
// emptied into `bins` before any can overflow (kFlushEvery vectors).
class BinTally {
 public:
  static constexpr std::int64_t kFlushEvery = 255;
  static constexpr std::uint64_t kNoBin = 15;  // the lanes that are not counted

  BinTally() : low_(hn::Zero(DU())), high_(hn::Zero(DU())) {}

  HWY_INLINE void add(const VD* edge, hn::Mask<DD> counted, VD abs_err) {
    const DU du;
    const VU one = hn::Set(du, 1);
    VU bin = hn::Zero(du);
    HWY_UNROLL(kEdges)
    for (int t = 0; t < kEdges; ++t)
      bin = hn::IfThenElse(hn::RebindMask(du, hn::Ge(abs_err, edge[t])), hn::Add(bin, one), bin);
    bin = hn::IfThenElse(hn::RebindMask(du, counted), bin, hn::Set(du, kNoBin));
    const VU inc = hn::Shl(one, hn::ShiftLeft<3>(hn::And(bin, hn::Set(du, 7))));
    const auto low = hn::Lt(bin, hn::Set(du, 8));
    low_ = hn::Add(low_, hn::IfThenElseZero(low, inc));
    high_ = hn::Add(high_, hn::IfThenZeroElse(low, inc));
  }

  // Adds the fields to bins[0 .. 15] and empties them.
  HWY_INLINE void flush(std::int64_t* bins) {
    const DU du;
    const std::int64_t lanes = static_cast<std::int64_t>(hn::Lanes(du));
    HWY_ALIGN std::uint64_t words[2 * 64 / sizeof(std::uint64_t) * 4];
    hn::Store(low_, du, words);
    hn::Store(high_, du, words + lanes);
    for (std::int64_t w = 0; w < 2 * lanes; ++w)
      for (int f = 0; f < 8; ++f)
        bins[(w / lanes) * 8 + f] += static_cast<std::int64_t>((words[w] >> (8 * f)) & 0xff);
    low_ = hn::Zero(du);
    high_ = hn::Zero(du);
  }

 private:
  VU low_, high_;
};

void ScanF32(const float* HWY_RESTRICT ref, const float* HWY_RESTRICT cand, std::int64_t n,
             const Params& p, const Elements& out, Figures& f) {
  const DD d;
  const DU du;
  const hn::Rebind<float, DD> df;
  const hn::Rebind<std::uint32_t, DD> d32;
  const std::int64_t N = static_cast<std::int64_t>(hn::Lanes(d));
  const VD zero = hn::Zero(d), one = hn::Set(d, 1.0);
  const VU one_u = hn::Set(du, 1);
  const VD inf = hn::Set(d, std::numeric_limits<double>::infinity());
  const VD atol = hn::Set(d, p.atol), rtol = hn::Set(d, p.rtol);
  VD edge[kEdges];
  for (int t = 0; t < kEdges; ++t) edge[t] = hn::Set(d, p.edges[t]);
  // In locals: the compiler cannot tell the stores through them from the struct they sit in.
  double* HWY_RESTRICT const error = out.error;
  double* HWY_RESTRICT const score = out.score;
  double* HWY_RESTRICT const rel_out = out.rel;
  double* HWY_RESTRICT const channel_abs = out.channel_abs;
  double* HWY_RESTRICT const mismatch_out = out.mismatch;
  BinTally tally;
  std::int64_t bins[16] = {};
  VU infinite = hn::Zero(du), nan_binned = hn::Zero(du);
  VD ratio_acc = hn::Set(d, f.tolerance_ratio), required_acc = hn::Set(d, f.required_atol);
  VD rel_acc = hn::Set(d, f.max_rel), ref_acc = hn::Set(d, f.max_abs_reference);
  VD abs_acc = hn::Set(d, f.max_abs);
  VU ulp_acc = hn::Set(du, f.max_ulp);
  VD finite = zero, mismatches = zero, nan_both = zero, nan_mismatches = zero;
  const auto ulp_of = [&](std::int64_t j) {
    if (p.ulp == DType::F32) {
      const VU ka = ordered_key(hn::PromoteTo(du, hn::BitCast(d32, hn::LoadU(df, cand + j))));
      const VU kb = ordered_key(hn::PromoteTo(du, hn::BitCast(d32, hn::LoadU(df, ref + j))));
      return hn::IfThenElse(hn::Gt(ka, kb), hn::Sub(ka, kb), hn::Sub(kb, ka));
    }
    const auto va = hn::LoadU(df, cand + j), vb = hn::LoadU(df, ref + j);
    const bool half = p.ulp == DType::F16;
    const auto ka = ordered_key16(d32, half ? half_bits(df, va) : bf16_bits(df, va));
    const auto kb = ordered_key16(d32, half ? half_bits(df, vb) : bf16_bits(df, vb));
    return hn::PromoteTo(du, hn::IfThenElse(hn::Gt(ka, kb), hn::Sub(ka, kb), hn::Sub(kb, ka)));
  };
  std::int64_t since_flush = 0;
  for (std::int64_t j = 0; j < n; j += N) {
    if (++since_flush > BinTally::kFlushEvery) {
      tally.flush(bins);
      since_flush = 1;
    }
    const VD b = hn::PromoteTo(d, hn::LoadU(df, ref + j));
    const VD a = hn::PromoteTo(d, hn::LoadU(df, cand + j));
    const VD abs_b = hn::Abs(b);
    const VD allowed = hn::Add(atol, hn::Mul(rtol, abs_b));
    if (hn::AllTrue(d, hn::And(hn::IsFinite(a), hn::IsFinite(b)))) {
      // Both sides finite, as nearly every element of two backends' outputs is: the general
      // path below with its NaN and infinity selects dropped, as they select nothing here. a - b
      // of equal values is a zero whose magnitude is +0, as the general path's is.
      const VD abs_err = hn::Abs(hn::Sub(a, b));
      const VD rel = hn::IfThenZeroElse(hn::Eq(abs_err, zero), hn::Div(abs_err, abs_b));
      const VD ratio = hn::IfThenElse(hn::Gt(allowed, zero), hn::Div(abs_err, allowed),
                                      hn::IfThenElseZero(hn::Gt(abs_err, zero), inf));
      const auto mismatch = hn::Not(hn::Le(abs_err, allowed));
      const auto all = hn::FirstN(d, static_cast<std::size_t>(N));
      ratio_acc = max_where(all, ratio_acc, ratio);
      required_acc = max_where(all, required_acc, hn::Sub(abs_err, hn::Mul(rtol, abs_b)));
      rel_acc = max_where(all, rel_acc, rel);
      ref_acc = max_where(all, ref_acc, abs_b);
      abs_acc = max_where(all, abs_acc, abs_err);
      const VU ulp = ulp_of(j);
      ulp_acc = hn::IfThenElse(hn::Lt(ulp_acc, ulp), ulp, ulp_acc);
      finite = hn::Add(finite, one);
      const VD mismatch_v = hn::IfThenElseZero(mismatch, one);
      mismatches = hn::Add(mismatches, mismatch_v);
      tally.add(edge, hn::Gt(abs_err, zero), abs_err);
      hn::StoreU(abs_err, d, error + j);
      hn::StoreU(abs_err, d, score + j);
      hn::StoreU(rel, d, rel_out + j);
      hn::StoreU(abs_err, d, channel_abs + j);
      hn::StoreU(mismatch_v, d, mismatch_out + j);
      continue;
    }
    const auto nan_a = hn::IsNaN(a), nan_b = hn::IsNaN(b);
    const auto any_nan = hn::Or(nan_a, nan_b);
    const auto clean = hn::Not(any_nan);
    const auto both_nan = hn::And(nan_a, nan_b);
    const auto one_nan = hn::Xor(nan_a, nan_b);
    const VD abs_err = hn::IfThenZeroElse(hn::Eq(a, b), hn::Abs(hn::Sub(a, b)));
    const VD rel = hn::IfThenZeroElse(
        hn::Eq(abs_err, zero), hn::IfThenElse(hn::Eq(b, zero), inf, hn::Div(abs_err, abs_b)));
    const VD ratio = hn::IfThenElse(hn::Gt(allowed, zero), hn::Div(abs_err, allowed),
                                    hn::IfThenElseZero(hn::Gt(abs_err, zero), inf));
    const auto nan_mismatch = p.nan_equal ? one_nan : any_nan;
    const auto mismatch = hn::Or(hn::And(any_nan, nan_mismatch),
                                 hn::AndNot(any_nan, hn::Not(hn::Le(abs_err, allowed))));
    const VD e = hn::IfThenZeroElse(any_nan, abs_err);

    ratio_acc = max_where(clean, ratio_acc, ratio);
    required_acc = max_where(clean, required_acc, hn::Sub(abs_err, hn::Mul(rtol, abs_b)));
    rel_acc = max_where(clean, rel_acc, rel);
    ref_acc = max_where(clean, ref_acc, abs_b);
    abs_acc = max_where(clean, abs_acc, abs_err);
    ulp_acc = max_where(hn::RebindMask(du, clean), ulp_acc, ulp_of(j));
    finite = hn::Add(finite, hn::IfThenElseZero(hn::And(clean, hn::Lt(abs_err, inf)), one));
    mismatches = hn::Add(mismatches, hn::IfThenElseZero(mismatch, one));
    nan_both = hn::Add(nan_both, hn::IfThenElseZero(both_nan, one));
    nan_mismatches = hn::Add(nan_mismatches, hn::IfThenElseZero(one_nan, one));

    tally.add(edge, hn::And(clean, hn::And(hn::Gt(abs_err, zero), hn::Lt(abs_err, inf))), abs_err);
    infinite = hn::Add(
        infinite,
        hn::IfThenElseZero(hn::RebindMask(du, hn::And(clean, hn::Eq(abs_err, inf))), one_u));
    nan_binned = hn::Add(nan_binned,
                         hn::IfThenElseZero(hn::RebindMask(du, hn::And(any_nan, mismatch)), one_u));

    hn::StoreU(hn::IfThenElseZero(hn::Lt(e, inf), e), d, error + j);
    hn::StoreU(hn::IfThenElse(any_nan, hn::IfThenElseZero(mismatch, inf), abs_err), d, score + j);
    hn::StoreU(hn::IfThenZeroElse(any_nan, rel), d, rel_out + j);
    hn::StoreU(hn::IfThenElse(one_nan, inf, e), d, channel_abs + j);
    hn::StoreU(hn::IfThenElseZero(mismatch, one), d, mismatch_out + j);
  }
  tally.flush(bins);
  // Lane by lane into the figures: maxima as std::max takes them, counts exactly.
  constexpr std::size_t kMaxLanes = 64 / sizeof(double) * 4;
  double lanes[kMaxLanes];
  std::uint64_t ulp_lanes[kMaxLanes];
  const auto total = [&](VU v) {
    hn::StoreU(v, du, ulp_lanes);
    std::int64_t sum = 0;
    for (std::int64_t l = 0; l < N; ++l) sum += static_cast<std::int64_t>(ulp_lanes[l]);
    return sum;
  };
  std::int64_t positives = 0;
  for (int m = 0; m <= kEdges; ++m) {
    out.histogram[m + 1] += bins[m];
    positives += bins[m];
  }
  const std::int64_t infinite_total = total(infinite), nan_total = total(nan_binned);
  out.histogram[0] += n - positives - infinite_total - nan_total;
  out.histogram[kEdges + 1] += infinite_total;
  out.histogram[p.nan_bin] += nan_total;
  const auto fold_max = [&](VD v, double& into) {
    hn::StoreU(v, d, lanes);
    for (std::int64_t l = 0; l < N; ++l) into = std::max(into, lanes[l]);
  };
  const auto fold_sum = [&](VD v, double& into) {
    hn::StoreU(v, d, lanes);
    for (std::int64_t l = 0; l < N; ++l) into += lanes[l];
  };
  fold_max(ratio_acc, f.tolerance_ratio);
  fold_max(required_acc, f.required_atol);
  fold_max(rel_acc, f.max_rel);
  fold_max(ref_acc, f.max_abs_reference);
  fold_max(abs_acc, f.max_abs);
  hn::StoreU(ulp_acc, du, ulp_lanes);
  for (std::int64_t l = 0; l < N; ++l) f.max_ulp = std::max(f.max_ulp, ulp_lanes[l]);
  fold_sum(finite, f.finite);
  fold_sum(mismatches, f.mismatches);
  fold_sum(nan_both, f.nan_both);
  fold_sum(nan_mismatches, f.nan_mismatches);
}

}  // namespace HWY_NAMESPACE
}  // namespace bnscope::diff_scan
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace bnscope::diff_scan {

HWY_EXPORT(Lanes);
HWY_EXPORT(ScanF32);

std::int64_t lanes() {
  return HWY_DYNAMIC_DISPATCH(Lanes)();
}
void scan_f32(const float* ref, const float* cand, std::int64_t n, const Params& p,
              const Elements& out, Figures& f) {
  HWY_DYNAMIC_DISPATCH(ScanF32)(ref, cand, n, p, out, f);
}

}  // namespace bnscope::diff_scan
#endif
