// A large output is compared in chunks on several threads (float32 pairs through the vector scan,
// the rest through the scalar one); every figure must be what one loop over the elements in order
// gives: counts and maxima, the sums behind the mean errors to the last bit, the first index of the
// largest error, and the worst list with its ties.

#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <queue>
#include <vector>

#include "analysis/diff.h"
#include "vector_targets.h"

namespace bnscope {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct Plain {
  std::int64_t mismatches = 0, nan_mismatches = 0, nan_both = 0, max_abs_index = -1;
  double max_abs = 0, mean_abs = 0, max_rel = 0, required_atol = 0, tolerance_ratio = 0;
  std::vector<ChannelError> channels;
  std::vector<std::int64_t> worst;  // indices, worst first
};

struct Scored {
  double score;
  std::int64_t index;
  bool operator>(const Scored& o) const { return score > o.score; }
};

// One loop in element order over [outer, C, inner] data, as compare_output was written before it
// split.
Plain plain(const std::vector<double>& ref, const std::vector<double>& cand, std::int64_t c_count,
            const Tolerance& tol, int worst_k, std::int64_t inner = 1) {
  Plain p;
  p.channels.resize(static_cast<std::size_t>(c_count));
  std::priority_queue<Scored, std::vector<Scored>, std::greater<Scored>> worst;
  double sum_abs[kMeanLanes] = {};  // element i into partial i % kMeanLanes
  std::int64_t finite = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const double b = ref[i], a = cand[i];
    const bool nan_a = std::isnan(a), nan_b = std::isnan(b);
    bool mismatch = false;
    double abs_err = 0, rel_err = 0, score = 0;
    if (nan_a || nan_b) {
      if (nan_a && nan_b) {
        ++p.nan_both;
      } else {
        ++p.nan_mismatches;
        mismatch = true;
        score = kInf;
      }
    } else {
      abs_err = a == b ? 0.0 : std::fabs(a - b);
      rel_err = abs_err == 0 ? 0.0 : (b == 0 ? kInf : abs_err / std::fabs(b));
      const double allowed = tol.atol + tol.rtol * std::fabs(b);
      mismatch = !(abs_err <= allowed);
      p.tolerance_ratio = std::max(p.tolerance_ratio, allowed > 0 ? abs_err / allowed : 0.0);
      p.required_atol = std::max(p.required_atol, abs_err - tol.rtol * std::fabs(b));
      if (abs_err > p.max_abs || p.max_abs_index < 0) {
        p.max_abs = abs_err;
        p.max_abs_index = static_cast<std::int64_t>(i);
      }
      p.max_rel = std::max(p.max_rel, rel_err);
      if (std::isfinite(abs_err)) {
        sum_abs[i % kMeanLanes] += abs_err;
        ++finite;
      }
      score = abs_err;
    }
    if (mismatch) ++p.mismatches;
    ChannelError& ce =
        p.channels[i / static_cast<std::size_t>(inner) % static_cast<std::size_t>(c_count)];
    ++ce.count;
    if (mismatch) ++ce.mismatches;
    ce.max_abs = std::max(ce.max_abs, nan_a != nan_b ? kInf : abs_err);
    ce.max_rel = std::max(ce.max_rel, rel_err);
    if (std::isfinite(abs_err)) ce.mean_abs += abs_err;
    const auto k = static_cast<std::size_t>(worst_k);
    if (score > 0 && (worst.size() < k || score > worst.top().score)) {
      worst.push({score, static_cast<std::int64_t>(i)});
      if (worst.size() > k) worst.pop();
    }
  }
  const double total = ((sum_abs[0] + sum_abs[1]) + (sum_abs[2] + sum_abs[3])) +
                       ((sum_abs[4] + sum_abs[5]) + (sum_abs[6] + sum_abs[7]));
  p.mean_abs = finite ? total / static_cast<double>(finite) : 0.0;
  for (ChannelError& ce : p.channels)
    ce.mean_abs = ce.count ? ce.mean_abs / static_cast<double>(ce.count) : 0.0;
  for (; !worst.empty(); worst.pop()) p.worst.push_back(worst.top().index);
  std::reverse(p.worst.begin(), p.worst.end());
  return p;
}

// Uniform doubles in [0, 1) from a 64-bit LCG: the same data on every platform.
struct Uniform {
  std::uint64_t s;
  double operator()() {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(s >> 11) * 0x1.0p-53;
  }
};

bool same_bits(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

// compare_output on [outer, C] data ([outer, C, inner] when inner > 1) stored as ref_type and
// cand_type (float64 unless given) against the one-loop version over the stored values, figure
// by figure.
void expect_plain(const std::vector<double>& ref_values, const std::vector<double>& cand_values,
                  std::int64_t outer, std::int64_t C, DType ref_type = DType::F64,
                  DType cand_type = DType::F64, std::int64_t inner = 1) {
  const std::size_t n = ref_values.size();
  const Shape shape = inner > 1 ? Shape{outer, C, inner} : Shape{outer, C};
  OutputTensor r{"x_backprop", Tensor::from_doubles(ref_type, shape, ref_values)};
  OutputTensor c{"x_backprop", Tensor::from_doubles(cand_type, shape, cand_values)};
  const std::vector<double> ref = r.tensor.to_doubles(), cand = c.tensor.to_doubles();
  DiffOptions options;
  options.worst_k = 25;
  const ChannelView view{outer, C, inner};
  const OutputDiff d = compare_output(r, c, options, &view);
  const Plain want = plain(ref, cand, C, d.tolerance, options.worst_k, inner);
  EXPECT_TRUE(same_bits(d.tolerance_ratio, want.tolerance_ratio));
  EXPECT_TRUE(same_bits(d.required_atol, want.required_atol));

  EXPECT_EQ(d.count, static_cast<std::int64_t>(n));
  EXPECT_EQ(d.mismatches, want.mismatches);
  EXPECT_EQ(d.nan_mismatches, want.nan_mismatches);
  EXPECT_EQ(d.nan_both, want.nan_both);
  EXPECT_EQ(d.max_abs_index, want.max_abs_index);
  EXPECT_TRUE(same_bits(d.max_abs, want.max_abs));
  EXPECT_TRUE(same_bits(d.mean_abs, want.mean_abs)) << d.mean_abs << " " << want.mean_abs;
  EXPECT_TRUE(same_bits(d.max_rel, want.max_rel));
  ASSERT_EQ(d.channels.size(), want.channels.size());
  for (std::size_t k = 0; k < want.channels.size(); ++k) {
    EXPECT_EQ(d.channels[k].count, want.channels[k].count) << k;
    EXPECT_EQ(d.channels[k].mismatches, want.channels[k].mismatches) << k;
    EXPECT_TRUE(same_bits(d.channels[k].max_abs, want.channels[k].max_abs)) << k;
    EXPECT_TRUE(same_bits(d.channels[k].max_rel, want.channels[k].max_rel)) << k;
    EXPECT_TRUE(same_bits(d.channels[k].mean_abs, want.channels[k].mean_abs)) << k;
  }
  ASSERT_EQ(d.worst.size(), want.worst.size());
  for (std::size_t k = 0; k < want.worst.size(); ++k)
    EXPECT_EQ(d.worst[k].index, want.worst[k]) << "worst #" << k;
  std::int64_t histogram_total = 0;
  for (std::int64_t h : d.histogram) histogram_total += h;
  EXPECT_EQ(histogram_total, static_cast<std::int64_t>(n));
  // The histogram bin by bin, the largest ulp distance and the output's scale, element by element.
  std::vector<std::int64_t> bins(d.histogram.size(), 0);
  std::uint64_t max_ulp = 0;
  double max_ref = 0;
  const int last = histogram_bin_count() - 1;
  for (std::size_t i = 0; i < n; ++i) {
    const double b = ref[i], a = cand[i];
    if (std::isnan(a) || std::isnan(b)) {
      ++bins[static_cast<std::size_t>(std::isnan(a) && std::isnan(b) ? 0 : last)];
      continue;
    }
    const double e = a == b ? 0.0 : std::fabs(a - b);
    int bin = 0;
    if (e == kInf)
      bin = last - 1;
    else if (e > 0)
      bin = 1 + std::clamp(static_cast<int>(std::floor(std::log10(e))) - kHistogramDecadeLow + 1, 0,
                           kHistogramDecadeHigh - kHistogramDecadeLow);
    ++bins[static_cast<std::size_t>(bin)];
    max_ulp = std::max(max_ulp, ulp_distance(a, b, cand_type));
    max_ref = std::max(max_ref, std::fabs(b));
  }
  EXPECT_EQ(d.histogram, bins);
  if (d.nan_mismatches == 0) {
    EXPECT_EQ(d.max_ulp, max_ulp);
  }
  EXPECT_TRUE(same_bits(d.max_abs_reference, max_ref));
}

TEST(DiffParts, LargeOutputGivesWhatOneLoopGives) {
  const std::int64_t outer = 4099, C = 77;  // 315 623 elements: several chunks and threads
  const auto n = static_cast<std::size_t>(outer * C);
  std::vector<double> ref(n), cand(n);
  Uniform next{99};
  for (std::size_t i = 0; i < n; ++i) {
    ref[i] = 4 * next() - 2;
    cand[i] = ref[i] + (next() - 0.5) * 1e-3;
    if (i % 1000 == 7) cand[i] = ref[i] + 0.25;  // equal scores: ties for the worst list
    if (i % 9973 == 5) cand[i] = std::nan("");
    if (i % 12007 == 3) ref[i] = cand[i] = std::nan("");
    if (i % 50021 == 11) cand[i] = kInf;
    if (i % 4001 == 2) cand[i] = ref[i];
  }
  for (DType t : {DType::F64, DType::F32}) expect_plain(ref, cand, outer, C, t, t);
}

// Channels first ([outer, C, inner]): a channel's elements come in runs that straddle the
// pieces, strides and threads of the scan (inner is no divisor of any of them), and the
// per-channel figures must still be the element loop's.
TEST(DiffParts, ChannelsFirstOutputGivesWhatOneLoopGives) {
  const std::int64_t outer = 7, C = 13, inner = 3331;  // 303 121 elements
  const auto n = static_cast<std::size_t>(outer * C * inner);
  std::vector<double> ref(n), cand(n);
  Uniform next{23};
  for (std::size_t i = 0; i < n; ++i) {
    ref[i] = cand[i] = 4 * next() - 2;
    if (next() < 0.6) cand[i] = ref[i] + (next() - 0.5) * std::pow(10.0, -9 + 8 * next());
    if (i % 1000 == 7) cand[i] = ref[i] + 0.25;
    if (i % 12007 == 3) ref[i] = cand[i] = std::nan("");
  }
  for (DType t : {DType::F64, DType::F32}) expect_plain(ref, cand, outer, C, t, t, inner);
}

// The same figures for every stored type, and for a reference stored in another type than the
// candidate (the ulp distance is then taken in the candidate's type). No element is NaN on one
// side only, so the largest ulp distance is compared too.
TEST(DiffParts, EveryStoredTypeGivesWhatOneLoopGives) {
  const std::int64_t outer = 1501, C = 40;
  const auto n = static_cast<std::size_t>(outer * C);
  std::vector<double> ref(n), cand(n);
  Uniform next{5};
  for (std::size_t i = 0; i < n; ++i) {
    ref[i] = cand[i] = 4 * next() - 2;
    if (next() < 0.5) cand[i] = ref[i] * (1 + (next() - 0.5) * 0.05);
    if (i % 1201 == 3) ref[i] = cand[i] = std::nan("");  // no NaN on one side only: the ulp counts
    if (i % 1409 == 11) cand[i] = kInf;
    if (i % 1601 == 2) ref[i] = 0.0, cand[i] = -0.0;
  }
  for (DType t : kAllDTypes) {
    SCOPED_TRACE(std::string(dtype_name(t)));
    expect_plain(ref, cand, outer, C, t, t);
  }
  SCOPED_TRACE("float64 reference, float32 candidate");
  expect_plain(ref, cand, outer, C, DType::F64, DType::F32);
}

// Two good backends agree bit for bit on most elements: those take a shortcut through the scan,
// which must leave every figure as the full computation would, signed zeros, equal infinities
// and a leading run of equal elements (the first index of the largest error) included.
TEST(DiffParts, MostlyEqualOutputGivesWhatOneLoopGives) {
  const std::int64_t outer = 3001, C = 64;
  const auto n = static_cast<std::size_t>(outer * C);
  std::vector<double> ref(n), cand(n);
  Uniform next{7};
  for (std::size_t i = 0; i < n; ++i) {
    ref[i] = cand[i] = 4 * next() - 2;
    if (i > 5000 && next() < 0.4) cand[i] = ref[i] + (next() - 0.5) * 1e-3;
    if (i % 7919 == 1) ref[i] = cand[i] = kInf;
    if (i % 6007 == 2) ref[i] = cand[i] = -kInf;
    if (i % 5003 == 3) ref[i] = cand[i] = 0.0;
    if (i % 5003 == 4) ref[i] = 0.0, cand[i] = -0.0;
    if (i % 9001 == 5) ref[i] = cand[i] = std::nan("");
  }
  for (DType t : {DType::F64, DType::F32}) expect_plain(ref, cand, outer, C, t, t);
  // All equal: no error anywhere, the largest (0) first found at element 0.
  for (DType t : {DType::F64, DType::F32}) expect_plain(ref, ref, outer, C, t, t);
}

// No NaN anywhere: every figure must be the element loop's, with equal and unequal elements at
// random, equal and opposite infinities, signed zeros, zeros in the reference (infinite relative
// errors) and errors right at the tolerance.
TEST(DiffParts, OutputWithoutNanGivesWhatOneLoopGives) {
  const std::int64_t outer = 5003, C = 48;
  const auto n = static_cast<std::size_t>(outer * C);
  std::vector<double> ref(n), cand(n);
  Uniform next{11};
  for (std::size_t i = 0; i < n; ++i) {
    ref[i] = cand[i] = 4 * next() - 2;
    if (next() < 0.45) cand[i] = ref[i] + (next() - 0.5) * std::pow(10.0, -12 + 14 * next());
    if (i % 7919 == 1) ref[i] = cand[i] = kInf;
    if (i % 7919 == 2) ref[i] = kInf, cand[i] = -kInf;
    if (i % 6007 == 3) cand[i] = kInf;
    if (i % 5003 == 4) ref[i] = 0.0, cand[i] = -0.0;
    if (i % 5003 == 5) ref[i] = 0.0, cand[i] = 1e-3;
    if (i % 4001 == 6) ref[i] = 1.0, cand[i] = 1.0 + 2e-3;  // at the default tolerance
  }
  for (DType t : {DType::F64, DType::F32}) expect_plain(ref, cand, outer, C, t, t);
  for (DType t : {DType::F64, DType::F32}) expect_plain(ref, ref, outer, C, t, t);
}

// The float32 scan on every vector target this build has and this CPU runs: its two paths (both
// sides finite, anything else) and its packed histogram counters must give the element loop's
// figures on each, whatever the lane count.
TEST(DiffParts, Float32ScanGivesWhatOneLoopGivesOnEveryTarget) {
  const TargetGuard guard;
  const std::int64_t outer = 39999, C = 9;
  const auto n = static_cast<std::size_t>(outer * C);
  std::vector<double> ref(n), cand(n);
  Uniform next{31};
  for (std::size_t i = 0; i < n; ++i) {
    ref[i] = cand[i] = 4 * next() - 2;
    if (next() < 0.7) cand[i] = ref[i] + (next() - 0.5) * std::pow(10.0, -13 + 16 * next());
    if (i % 7919 == 1) ref[i] = cand[i] = kInf;
    if (i % 6007 == 3) cand[i] = kInf;
    if (i % 9973 == 5) cand[i] = std::nan("");
    if (i % 5003 == 4) ref[i] = 0.0, cand[i] = -0.0;
    if (i % 5003 == 5) ref[i] = 0.0, cand[i] = 1e-3;
    // A long run of errors in one decade: every lane counts in one bin for whole blocks.
    if (i >= 100000 && i < 120000) ref[i] = 1.0, cand[i] = 1.0 + 0x1p-20;
  }
  for (std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    SCOPED_TRACE(hwy::TargetName(target));
    expect_plain(ref, cand, outer, C, DType::F32, DType::F32);
    expect_plain(ref, cand, 3, C, DType::F32, DType::F32, outer / 3);
  }
}

// A half-precision run against a float32 reference (and the other mixes of the float formats):
// the values are widened to float32 for the vector scan and the ulp distance is counted in the
// candidate's type, on every vector target; every figure must be the element loop's. Subnormal
// halves, values past float16's range (infinite there), signed zeros and NaN pairs included.
TEST(DiffParts, HalfPrecisionAgainstFloat32GivesWhatOneLoopGivesOnEveryTarget) {
  const TargetGuard guard;
  const std::int64_t outer = 20010, C = 7;
  const auto n = static_cast<std::size_t>(outer * C);
  std::vector<double> ref(n), cand(n);
  Uniform next{37};
  for (std::size_t i = 0; i < n; ++i) {
    ref[i] = 4 * next() - 2;
    if (i % 13 == 1) ref[i] *= 1e-6;                           // float16 subnormals
    if (i % 997 == 2) ref[i] = 7e4 * (next() < 0.5 ? -1 : 1);  // beyond float16's largest
    cand[i] = next() < 0.3 ? ref[i] : ref[i] * (1 + (next() - 0.5) * std::pow(10.0, -4 * next()));
    if (i % 7919 == 3) ref[i] = cand[i] = std::nan("");
    if (i % 7919 == 6) ref[i] = std::nan(""), cand[i] = -std::nan("");  // a pair: no distance
    if (i % 5003 == 4) ref[i] = 0.0, cand[i] = -0.0;
    if (i % 6007 == 5) cand[i] = kInf;
  }
  std::vector<double> one_sided = cand;
  for (std::size_t i = 17; i < n; i += 4099) one_sided[i] = std::nan("");
  const std::pair<DType, DType> mixes[] = {{DType::F32, DType::F16},  {DType::F32, DType::BF16},
                                           {DType::F16, DType::F32},  {DType::BF16, DType::F32},
                                           {DType::F16, DType::BF16}, {DType::BF16, DType::BF16}};
  for (std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    SCOPED_TRACE(hwy::TargetName(target));
    for (const auto& [ref_type, cand_type] : mixes) {
      SCOPED_TRACE(std::string(dtype_name(ref_type)) + " reference, " +
                   std::string(dtype_name(cand_type)) + " candidate");
      expect_plain(ref, cand, outer, C, ref_type, cand_type);
      expect_plain(ref, one_sided, outer, C, ref_type, cand_type);
      expect_plain(ref, cand, 3, C, ref_type, cand_type, outer / 3);
    }
  }
}

// A float32 reference exactly halfway between two neighbours of the candidate's 16-bit type
// rounds to the even one before the distance is counted: a candidate at the lower neighbour is 0
// ulp away when that one is even, 1 when it is odd, on every vector target.
TEST(DiffParts, HalfwayReferencesRoundToEvenBeforeTheUlpCount) {
  const TargetGuard guard;
  const std::int64_t outer = 256, C = 4;
  const auto n = static_cast<std::size_t>(outer * C);
  for (DType t : {DType::F16, DType::BF16}) {
    const auto value = [t](std::uint32_t bits) {
      return t == DType::F16
                 ? static_cast<double>(half_bits_to_float(static_cast<std::uint16_t>(bits)))
                 : static_cast<double>(bf16_bits_to_float(static_cast<std::uint16_t>(bits)));
    };
    for (std::uint32_t parity : {0u, 1u}) {
      std::vector<double> ref(n), cand(n);
      for (std::size_t i = 0; i < n; ++i) {
        // Normal and subnormal neighbours of both signs, all of one parity.
        const std::uint32_t low = ((static_cast<std::uint32_t>(i) * 37u) % 0x3000u) * 2u + parity;
        const std::uint32_t sign = i % 2 ? 0x8000u : 0u;
        cand[i] = value(sign | low);
        ref[i] = (value(sign | low) + value(sign | (low + 1))) / 2;
      }
      for (std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
        hwy::SetSupportedTargetsForTest(target);
        SCOPED_TRACE(std::string(hwy::TargetName(target)) + " " + std::string(dtype_name(t)) +
                     (parity ? " odd" : " even"));
        expect_plain(ref, cand, outer, C, DType::F32, t);
        const OutputTensor r{"x_backprop", Tensor::from_doubles(DType::F32, {outer, C}, ref)};
        const OutputTensor c{"x_backprop", Tensor::from_doubles(t, {outer, C}, cand)};
        EXPECT_EQ(compare_output(r, c, DiffOptions{}).max_ulp, parity);
      }
    }
  }
}

// The first index of the largest error when it is 0: an equal element after leading NaN pairs
// (which have no error), and after a leading NaN mismatch.
TEST(DiffParts, LeadingNanThenEqualElementsKeepTheFirstIndexOfTheLargestError) {
  const std::int64_t outer = 700, C = 30;
  const auto n = static_cast<std::size_t>(outer * C);
  std::vector<double> ref(n), cand(n);
  for (std::size_t i = 0; i < n; ++i) ref[i] = cand[i] = std::sin(static_cast<double>(i));
  const auto expect_first = [&](std::int64_t index) {
    OutputTensor r{"x_backprop", Tensor::from_doubles(DType::F64, {outer, C}, ref)};
    OutputTensor c{"x_backprop", Tensor::from_doubles(DType::F64, {outer, C}, cand)};
    const ChannelView view{outer, C, 1};
    const OutputDiff d = compare_output(r, c, DiffOptions{}, &view);
    const Plain want = plain(ref, cand, C, d.tolerance, 1);
    EXPECT_EQ(want.max_abs_index, index);
    EXPECT_EQ(d.max_abs_index, want.max_abs_index);
    EXPECT_TRUE(same_bits(d.max_abs, want.max_abs));
    EXPECT_EQ(d.nan_both, want.nan_both);
    EXPECT_EQ(d.nan_mismatches, want.nan_mismatches);
  };
  ref[0] = cand[0] = std::nan("");
  ref[1] = cand[1] = std::nan("");
  expect_first(2);
  cand[0] = 1;
  expect_first(2);
  cand[9000] += 1e-3;
  expect_first(9000);
}

}  // namespace
}  // namespace bnscope
