// The vector loops must give the same bits on every Highway target this binary carries (AVX-512,
// AVX2, SSE4, ...), so a result does not depend on the CPU it ran on, and their f16/bf16
// conversions must equal convert.h's for every 16-bit pattern (NaN, Inf, subnormals included).

#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <limits>
#include <type_traits>
#include <vector>

#include "backends/cpu/simd.h"
#include "engine/engine.h"
#include "problem_maker.h"
#include "vector_targets.h"

namespace bnscope::testing {
namespace {

template <class T>
void expect_roundtrip_matches_scalar(cpu::simd::Elem elem) {
  std::vector<T> in(65536), out(65536);
  for (std::uint32_t i = 0; i < in.size(); ++i) in[i].bits = static_cast<std::uint16_t>(i);
  // out = 1*b + 0*(a - 0) + 0 with a = 0: exactly store(load(b)), specials included.
  std::vector<T> zeros(in.size());
  // Non-temporal stores too: they take the vector path's full-width stores (two vectors at once
  // for bfloat16 on AVX2) after a scalar head up to their alignment.
  for (bool nt : {false, true}) {
    std::fill(out.begin(), out.end(), T{});
    cpu::simd::Sweep s{elem, false, zeros.data(), in.data(), out.data() + 1, nt};
    cpu::simd::plane_affine(s, {0, static_cast<std::int64_t>(in.size()) - 1, 1 << 20, 1 << 20},
                            1.0f, 0.0f, 0.0f, 0.0f);
    for (std::size_t i = 1; i < in.size(); ++i) {
      const T want = cpu::store<T>(1.0f * cpu::load(in[i - 1]) +
                                   0.0f * (cpu::load(zeros[i - 1]) - 0.0f) + 0.0f);
      ASSERT_EQ(out[i].bits, want.bits)
          << cpu::simd::target_name() << " pattern " << i - 1 << (nt ? " streamed" : "");
    }
  }
}

// Stores of arbitrary floats (not only of values that came from 16 bits): rounding to nearest
// even at every exponent, overflow, subnormal results, NaN payloads. out = p*((1 - 0) + 0*0) = p
// per lane. The special patterns go through the planes loop (one scalar coefficient for all 64
// lanes), the sweep over all exponents through the rows loop with a pattern per lane, 64 at a
// time, so that each is stored once rather than 64 times.
template <class T>
void expect_stores_match_scalar(cpu::simd::Elem elem) {
  constexpr std::int64_t kRun = 64;  // several full vectors on every target
  const std::vector<T> ones(kRun, cpu::store<T>(1.0f)), zeros(kRun, cpu::store<T>(0.0f));
  std::vector<T> out(kRun);
  cpu::simd::Sweep s{elem, false, zeros.data(), ones.data(), out.data(), false};
  const auto want = [](std::uint32_t bits) {
    float p;
    std::memcpy(&p, &bits, sizeof p);
    return cpu::store<T>(p * ((1.0f - 0.0f) + (0.0f - 0.0f) * 0.0f));
  };
  const std::uint32_t specials[] = {0x7F800001u, 0xFF800001u, 0x7FBFFFFFu, 0xFFC00001u,
                                    0x477FF000u, 0x477FEFFFu, 0x33000000u, 0x33000001u,
                                    0x387FC000u, 0x3F802000u, 0x3F806000u, 0x3F808000u};
  for (std::uint32_t bits : specials) {
    float p;
    std::memcpy(&p, &bits, sizeof p);
    cpu::simd::plane_affine(s, {0, kRun, 1 << 20, 1 << 20}, p, 0.0f, 0.0f, 0.0f);
    for (std::int64_t i = 0; i < kRun; ++i)
      ASSERT_EQ(out[i].bits, want(bits).bits)
          << cpu::simd::target_name() << " float bits 0x" << std::hex << bits << " lane " << i;
  }
  std::vector<float> p(kRun);
  const std::vector<float> zero(kRun, 0.0f);
  std::uint64_t next = 0;
  while (next < (1ull << 32)) {
    std::uint32_t bits[kRun];
    for (std::int64_t j = 0; j < kRun; ++j, next += 4093) {
      bits[j] = static_cast<std::uint32_t>(next);
      std::memcpy(&p[j], &bits[j], sizeof(float));
    }
    cpu::simd::rows_affine(s, 1, kRun, kRun, p.data(), zero.data(), zero.data(), zero.data());
    for (std::int64_t j = 0; j < kRun; ++j)
      ASSERT_EQ(out[j].bits, want(bits[j]).bits)
          << cpu::simd::target_name() << " float bits 0x" << std::hex << bits[j] << " lane " << j;
  }
}

// A nan_free sweep (simd.h) stores its grads without the NaN lanes' select: with no NaN among
// inputs and coefficients, every NaN it makes (Inf - Inf, 0 * Inf) must still come out as
// convert.h's pattern, as must overflow to Inf, subnormals and ties. Planes take scalar
// coefficients, rows per-lane ones (48 lanes: three 16-lane groups; 40: a tail).
template <class T>
void expect_nan_free_grads_match_scalar(cpu::simd::Elem elem) {
  const float big = std::is_same_v<T, f16> ? 65504.0f : 3.0e38f;
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> inputs = {0.0f, -0.0f, 1.0f, -1.5f, big, -big, inf, -inf, 3.0e-5f, 7.0f};
  const std::vector<float> pool = {1.0f,    0.0f,     -0.0f,    inf,  -inf,
                                   3.0e38f, -3.0e38f, 1.0e-30f, 0.75f};
  constexpr std::int64_t kRun = 96;
  std::vector<T> a(kRun), b(kRun), out(kRun);
  for (std::int64_t i = 0; i < kRun; ++i) {
    a[i] = cpu::store<T>(inputs[i % inputs.size()]);
    b[i] = cpu::store<T>(inputs[(i / inputs.size() + 3 * i) % inputs.size()]);
  }
  const auto want = [&](std::int64_t i, float p, float q, float m, float r) {
    return cpu::store<T>(cpu::simd::affine<false>(cpu::load(a[i]), cpu::load(b[i]), p, q, m, r));
  };
  std::int64_t nans = 0;
  cpu::simd::Sweep s{elem, false, a.data(), b.data(), out.data(), false};
  s.nan_free = true;
  std::uint32_t state = 11;
  const auto pick = [&] {
    state = state * 1664525u + 1013904223u;
    return pool[(state >> 8) % pool.size()];
  };
  for (int trial = 0; trial < 400; ++trial) {
    const float p = pick(), q = pick(), m = pick(), r = pick();
    cpu::simd::plane_affine(s, {0, kRun, 1 << 20, 1 << 20}, p, q, m, r);
    for (std::int64_t i = 0; i < kRun; ++i) {
      const T w = want(i, p, q, m, r);
      nans += cpu::load(w) != cpu::load(w);
      ASSERT_EQ(out[i].bits, w.bits) << cpu::simd::target_name() << " plane, p " << p << " q " << q
                                     << " m " << m << " r " << r << " element " << i;
    }
  }
  for (std::int64_t L : {48, 40}) {
    for (int trial = 0; trial < 100; ++trial) {
      std::vector<float> p(L), q(L), m(L), r(L);
      for (std::int64_t j = 0; j < L; ++j) {
        p[j] = pick();
        q[j] = pick();
        m[j] = pick();
        r[j] = pick();
      }
      const std::int64_t groups = kRun / L;
      cpu::simd::rows_affine(s, groups, L, L, p.data(), q.data(), m.data(), r.data());
      for (std::int64_t i = 0; i < groups * L; ++i) {
        const std::int64_t j = i % L;
        ASSERT_EQ(out[i].bits, want(i, p[j], q[j], m[j], r[j]).bits)
            << cpu::simd::target_name() << " rows of " << L << ", element " << i;
      }
    }
  }
  EXPECT_GT(nans, 0) << "no NaN was made, so the stores' NaN patterns went unchecked";
}

// Calls f once with each target this binary carries as the only one supported.
template <class F>
void on_every_target(F&& f) {
  TargetGuard guard;
  const std::vector<std::int64_t> targets = hwy::SupportedAndGeneratedTargets();
  ASSERT_FALSE(targets.empty());
  for (std::int64_t target : targets) {
    hwy::SetSupportedTargetsForTest(target);
    f();
  }
}

TEST(SimdTargets, NanFreeGradStoresMatchScalarOnEveryTarget) {
  on_every_target([] {
    expect_nan_free_grads_match_scalar<f16>(cpu::simd::Elem::F16);
    expect_nan_free_grads_match_scalar<bf16>(cpu::simd::Elem::BF16);
  });
}

// A channel block's lanes into per-channel sums: each channel's lanes in lane order on every
// target, whatever the block's channel count and lanes per channel (eight-channel groups and the
// channels after them, lanes short of a vector). Magnitudes from 1e-7 to 1e7 make any other
// order give other bits; a channel of -0 lanes keeps its -0 (a sum started at +0 would not).
TEST(SimdTargets, LaneFoldsAddEachChannelInLaneOrderOnEveryTarget) {
  std::uint32_t state = 5;
  const auto next = [&] {
    state = state * 1664525u + 1013904223u;
    return state >> 8;
  };
  const auto bits_equal = [](float x, float y) { return std::memcmp(&x, &y, sizeof x) == 0; };
  on_every_target([&] {
    for (const std::int64_t channels : {1, 3, 8, 9, 16, 21, 32})
      for (const std::int64_t inner : {1, 2, 7, 8, 9, 17, 49, 196}) {
        std::vector<float> acc0(static_cast<std::size_t>(channels * inner)), acc1(acc0.size());
        for (std::size_t i = 0; i < acc0.size(); ++i) {
          acc0[i] = std::ldexp(static_cast<float>(next() % 2000) - 999.5f,
                               static_cast<int>(next() % 48) - 34);
          acc1[i] = channels > 2 && i / inner == 2 ? -0.0f : -acc0[i] * 0.37f;
        }
        std::vector<float> t0(static_cast<std::size_t>(channels)), t1(t0.size());
        cpu::simd::fold_lanes(acc0.data(), acc1.data(), channels, inner, t0.data(), t1.data());
        for (std::int64_t c = 0; c < channels; ++c) {
          float w0 = acc0[c * inner], w1 = acc1[c * inner];
          for (std::int64_t i = 1; i < inner; ++i) {
            w0 += acc0[c * inner + i];
            w1 += acc1[c * inner + i];
          }
          ASSERT_TRUE(bits_equal(t0[c], w0) && bits_equal(t1[c], w1))
              << cpu::simd::target_name() << " channels " << channels << " inner " << inner
              << " channel " << c << ": " << t0[c] << ", " << t1[c] << " want " << w0 << ", " << w1;
        }
      }
  });
}

// The grads' 1/sqrt(v + eps) per channel: the scalar expression's bits on every target, for
// variances from subnormal to huge, zero with a zero epsilon (Inf), negative ones (NaN) and Inf.
TEST(SimdTargets, InverseSquareRootsMatchTheScalarExpressionOnEveryTarget) {
  std::vector<double> v = {
      0.0, -0.0, 4.9e-324, 1e-300, 1e300, -1.0, std::numeric_limits<double>::infinity()};
  std::uint32_t state = 9;
  for (int i = 0; i < 200; ++i) {
    state = state * 1664525u + 1013904223u;
    v.push_back(std::ldexp(1.0 + (state >> 8) * 0x1.0p-24, static_cast<int>(state % 80) - 60));
  }
  const auto bits_equal = [](double x, double y) { return std::memcmp(&x, &y, sizeof x) == 0; };
  on_every_target([&] {
    for (const double eps : {0.0, 1e-3, 1e-5})
      for (const std::size_t n : {std::size_t{1}, std::size_t{5}, v.size()}) {
        std::vector<double> got(n, 7.0);
        cpu::simd::rsqrt_plus(v.data(), eps, got.data(), static_cast<std::int64_t>(n));
        for (std::size_t i = 0; i < n; ++i) {
          const double want = 1.0 / std::sqrt(v[i] + eps);
          ASSERT_TRUE(bits_equal(got[i], want) || (got[i] != got[i] && want != want))
              << cpu::simd::target_name() << " v " << v[i] << " eps " << eps << ": " << got[i]
              << " want " << want;
        }
      }
  });
}

// Per-channel values into a block's per-lane operands, runs shorter and longer than a vector.
// The chunk partials are added into double totals in vectors; each lane must be one exact
// widening and one double addition per row, in row order, as the scalar loop, on every target,
// for every length (blocks of vectors, single vectors and a tail) and row count. The values span
// every exponent, so another order of the rows would give other bits.
TEST(SimdTargets, WidenedAdditionMatchesTheScalarLoop) {
  TargetGuard guard;
  std::vector<float> values;
  for (std::uint64_t bits = 0; bits < (1ull << 32); bits += 65537) {
    float v;
    const auto b = static_cast<std::uint32_t>(bits);
    std::memcpy(&v, &b, sizeof v);
    if (v == v) values.push_back(v);  // NaN payloads are not what this checks
  }
  for (std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    for (const std::int64_t rows : {1, 2, 7})
      for (const std::int64_t n : {1, 13, 100, 300}) {
        const std::int64_t stride = n + 3;  // rows apart, as the chunks' partials are
        std::vector<float> src(static_cast<std::size_t>(rows * stride));
        for (std::size_t i = 0; i < src.size(); ++i)
          src[i] = values[(i * 7919 + static_cast<std::size_t>(rows)) % values.size()];
        std::vector<double> got(static_cast<std::size_t>(n));
        for (std::size_t i = 0; i < got.size(); ++i)
          got[i] = static_cast<double>(values[(i * 104729) % values.size()]) * 0.75;
        const std::vector<double> start = got;
        cpu::simd::add_widened_rows(src.data(), rows, stride, got.data(), n);
        for (std::int64_t i = 0; i < n; ++i) {
          double want = start[i];
          for (std::int64_t k = 0; k < rows; ++k) want += static_cast<double>(src[k * stride + i]);
          ASSERT_EQ(std::memcmp(&got[i], &want, sizeof want), 0)
              << cpu::simd::target_name() << " rows " << rows << " n " << n << " element " << i;
        }
      }
  }
}

TEST(SimdTargets, SixteenBitConversionsMatchScalarOnEveryTarget) {
  on_every_target([] {
    expect_roundtrip_matches_scalar<f16>(cpu::simd::Elem::F16);
    expect_roundtrip_matches_scalar<bf16>(cpu::simd::Elem::BF16);
    expect_stores_match_scalar<f16>(cpu::simd::Elem::F16);
    expect_stores_match_scalar<bf16>(cpu::simd::Elem::BF16);
  });
}

// Where the CPU rounds to bfloat16 by instruction (simd.h: bf16_instruction), the tests above
// check that path; this one checks the integer rounding the AVX-512 sweeps keep beside it, on
// the same CPU: every pattern round-tripped, every exponent's rounding (subnormal floats among
// them), NaN payloads, and the grads' stores without the NaN select.
TEST(SimdTargets, BfloatIntegerRoundingMatchesScalarWhereTheCpuHasTheInstruction) {
  if (!cpu::simd::bf16_instruction)
    GTEST_SKIP() << "this CPU rounds to bfloat16 only by integer operations, checked above";
  struct Restore {
    ~Restore() { cpu::simd::bf16_instruction = true; }
  } restore;
  cpu::simd::bf16_instruction = false;
  on_every_target([] {
    expect_roundtrip_matches_scalar<bf16>(cpu::simd::Elem::BF16);
    expect_stores_match_scalar<bf16>(cpu::simd::Elem::BF16);
    expect_nan_free_grads_match_scalar<bf16>(cpu::simd::Elem::BF16);
  });
}

// Runs the problem on the cpu backend with each target in turn and compares with the first.
void expect_same_bits_on_every_target(const Problem& p, const std::vector<std::int64_t>& targets,
                                      const std::string& what) {
  hwy::SetSupportedTargetsForTest(targets.front());
  const Result first = run_problem(p, "cpu");
  for (std::size_t t = 1; t < targets.size(); ++t) {
    hwy::SetSupportedTargetsForTest(targets[t]);
    expect_bitwise_equal(
        first, run_problem(p, "cpu"),
        what + " on " + hwy::TargetName(targets[t]) + " vs " + hwy::TargetName(targets.front()));
  }
}

TEST(SimdTargets, GradsAreBitwiseEqualOnEveryTarget) {
  TargetGuard guard;
  const std::vector<std::int64_t> targets = hwy::SupportedAndGeneratedTargets();
  ASSERT_FALSE(targets.empty());
  std::uint32_t seed = 500;
  // Odd sizes run vector bodies and scalar tails. NHWC rows of 64 or 32 lanes (and C = 1 folded
  // to 16) keep their sums in registers where a row is 1, 2 or 4 vectors and in memory
  // otherwise, so targets of different widths compare the two loops.
  const std::vector<Shape> shapes = {{3, 17, 19, 21}, {2, 5, 7, 64}, {3, 5, 9, 32}, {2, 9, 11, 1}};
  for (const Shape& shape : shapes)
    for (const char* format : {"NHWC", "NCHW"})
      for (bool training : {true, false})
        for (DType dtype : {DType::F32, DType::BF16, DType::F16}) {
          const Variant v = sweep_variant(find_op("FusedBatchNormGradV3"), format, training, dtype,
                                          shape, seed++);
          expect_same_bits_on_every_target(make_problem(v), targets, describe(v));
        }
}

// BatchNormWithGlobalNormalizationGrad in half rounds every step to half: through F16C on AVX2
// and up, through convert.h's scalar rounding below it. Both must give the same bits, with sums
// that overflow to Inf, NaN and Inf inputs, and subnormal halves among the data.
TEST(SimdTargets, GlobalGradInHalfIsBitwiseEqualOnEveryTarget) {
  TargetGuard guard;
  const std::vector<std::int64_t> targets = hwy::SupportedAndGeneratedTargets();
  ASSERT_FALSE(targets.empty());
  const double specials[] = {std::numeric_limits<double>::quiet_NaN(),
                             std::numeric_limits<double>::infinity(),
                             -std::numeric_limits<double>::infinity(),
                             6.0e-8,
                             -3.0e-5,
                             60000.0,
                             -0.0};
  std::uint32_t state = 77;
  const auto uniform = [&] {
    state = state * 1664525u + 1013904223u;
    return static_cast<double>(state >> 8) * 0x1.0p-24;
  };
  for (const Shape& shape : {Shape{3, 5, 7, 37}, Shape{2, 9, 4, 3}, Shape{2, 3, 4, 64}}) {
    const std::int64_t C = shape.back();
    Problem p;
    p.op = "BatchNormWithGlobalNormalizationGrad";
    p.attrs["variance_epsilon"] = 0.001;
    p.attrs["scale_after_normalization"] = true;
    const auto random = [&](Shape s, double lo, double hi, bool special) {
      Tensor t(DType::F16, std::move(s));
      for (std::int64_t i = 0; i < t.numel(); ++i)
        t.set(i, special && i % 29 == 3 ? specials[(i / 29) % std::size(specials)]
                                        : lo + (hi - lo) * uniform());
      return t;
    };
    // Large dy: the sums of some channels pass 65504 and stay Inf.
    p.inputs["t"] = random(shape, -2, 3, true);
    p.inputs["backprop"] = random(shape, -900, 1000, true);
    p.inputs["m"] = random({C}, -0.5, 0.5, false);
    p.inputs["v"] = random({C}, 0.1, 2, false);
    p.inputs["gamma"] = random({C}, 0.5, 1.5, false);
    expect_same_bits_on_every_target(p, targets, shape_str(shape));
  }
}

}  // namespace
}  // namespace bnscope::testing
