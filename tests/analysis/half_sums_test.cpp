// BatchNormWithGlobalNormalizationGrad in half: the cpu backend sums in half as TensorFlow's CPU
// kernel does (so dm reaches -inf where the exact value fits), cpu-reference stays exact, and
// the cause finder names the overflowed sums.

#include <gtest/gtest.h>

#include <cmath>

#include "analysis/cause_finder.h"
#include "engine/engine.h"

namespace bnscope {
namespace {

Tensor filled(Shape shape, double v) {
  Tensor t(DType::F16, std::move(shape));
  for (std::int64_t i = 0; i < t.numel(); ++i) t.set(i, v);
  return t;
}

// 100 rows of dy = 1000: db's running sum in half passes 65504 after 66 rows. rsqrt(v + eps)
// is about 0.01, so the exact dm, -100000 * 0.01, fits in half.
Problem overflowing_sums() {
  Problem p;
  p.op = "BatchNormWithGlobalNormalizationGrad";
  p.attrs["variance_epsilon"] = 0.001;
  p.attrs["scale_after_normalization"] = true;
  p.inputs["t"] = filled({1, 1, 100, 1}, 0.5);
  p.inputs["m"] = filled({1}, 0.0);
  p.inputs["v"] = filled({1}, 10000.0);
  p.inputs["gamma"] = filled({1}, 1.0);
  p.inputs["backprop"] = filled({1, 1, 100, 1}, 1000.0);
  return p;
}

TEST(HalfSums, CpuSumsInHalfAsTensorFlowDoes) {
  const Result cpu = run_problem(overflowing_sums(), "cpu");
  const Result ref = run_problem(overflowing_sums(), "cpu-reference");
  EXPECT_EQ(cpu.output("db").tensor.get(0), INFINITY);
  EXPECT_EQ(cpu.output("dm").tensor.get(0), -INFINITY);
  EXPECT_TRUE(std::isfinite(ref.output("dm").tensor.get(0)));
  EXPECT_NEAR(ref.output("dm").tensor.get(0), -1000.0, 1.0);
  // dx = dy * half(rsqrt(v + eps) * gamma) = 1000 * half(0.01), rounded once to half.
  const float gk = half_bits_to_float(float_to_half_bits(
      half_bits_to_float(float_to_half_bits(1.0f / std::sqrt(10000.0f + 0.0010004044f)))));
  EXPECT_EQ(cpu.output("dx").tensor.get(0), half_bits_to_float(float_to_half_bits(1000.0f * gk)));
  // The (x - m) * dy sum, 100 * 500 = 50000, fits; dv = 50000 * -0.5 * k^3 stays finite.
  EXPECT_TRUE(std::isfinite(cpu.output("dv").tensor.get(0)));
  // dg = half(sum) * half(0.01), the sum of 100 products 1000 * 0.5 taken step by step in half.
  float sum = 0;
  for (int r = 0; r < 100; ++r) sum = half_bits_to_float(float_to_half_bits(sum + 500.0f));
  EXPECT_NE(sum, 50000.0f);  // half's steps of 32 above 32768 lose part of each 500
  EXPECT_EQ(cpu.output("dg").tensor.get(0), half_bits_to_float(float_to_half_bits(sum * gk)));
}

TEST(HalfSums, CauseFinderNamesTheOverflowedSums) {
  const Problem p = overflowing_sums();
  const Result ref = run_problem(p, "cpu-reference");
  const std::vector<Cause> causes = find_causes(p, run_problem(p, "cpu"), ref.outputs, {});
  ASSERT_FALSE(causes.empty());
  EXPECT_EQ(causes[0].code, "half-sum-overflow");
  EXPECT_NE(causes[0].title.find("dm"), std::string::npos) << causes[0].title;
  EXPECT_NE(causes[0].title.find("half-precision sums overflowed"), std::string::npos);
  for (const Cause& c : causes) EXPECT_NE(c.code, "half-overflow");
}

// TensorFlow's own outputs (here the cpu backend's, which match them) against cpu-reference.
TEST(HalfSums, CauseFinderNamesThemWhenTheReferenceSummedInHalf) {
  const Problem p = overflowing_sums();
  const Result tf_like = run_problem(p, "cpu");
  const std::vector<Cause> causes =
      find_causes(p, run_problem(p, "cpu-reference"), tf_like.outputs, {});
  ASSERT_FALSE(causes.empty());
  EXPECT_EQ(causes[0].code, "half-sum-overflow");
}

float hr(float v) {
  return half_bits_to_float(float_to_half_bits(v));
}

// TensorFlow's functor written out channel by channel, every operation rounded to half; the cpu
// backend must give exactly these bits on random data of several shapes, with and without
// scale_after_normalization, on one thread and on several. The shapes give the vector loop a few
// channels only (C = 1, 3, 4), whole vectors with a remainder (37), and channel ranges split
// among threads (64, 100).
TEST(HalfSums, CpuMatchesTheHalfModelBitForBit) {
  std::uint64_t state = 12345;
  auto uniform = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(state >> 11) * 0x1.0p-53;
  };
  const Shape shapes[] = {{2, 3, 5, 4},  {3, 7, 5, 1},  {4, 75, 80, 3},
                          {3, 9, 7, 37}, {2, 5, 6, 64}, {3, 4, 5, 100}};
  for (const Shape& shape : shapes)
    for (bool scaled : {true, false}) {
      const int threads = scaled ? 1 : 3;
      SCOPED_TRACE(shape_str(shape) + (scaled ? " scaled" : " unscaled") + ", " +
                   std::to_string(threads) + " thread(s)");
      const std::int64_t C = shape.back();
      Problem p;
      p.op = "BatchNormWithGlobalNormalizationGrad";
      p.attrs["variance_epsilon"] = 0.001;
      p.attrs["scale_after_normalization"] = scaled;
      auto random = [&](Shape s, double lo, double hi) {
        Tensor t(DType::F16, std::move(s));
        for (std::int64_t i = 0; i < t.numel(); ++i) t.set(i, lo + (hi - lo) * uniform());
        return t;
      };
      p.inputs["t"] = random(shape, -2, 3);
      p.inputs["backprop"] = random(shape, -1, 1);
      p.inputs["m"] = random({C}, -0.5, 0.5);
      p.inputs["v"] = random({C}, 0.1, 2);
      p.inputs["gamma"] = random({C}, 0.5, 1.5);
      RunContext ctx;
      ctx.threads = threads;
      const Result cpu = run_problem(p, "cpu", ctx);
      const Tensor &t = p.inputs["t"], &dy = p.inputs["backprop"];
      const std::int64_t rows = t.numel() / C;
      const float eps = hr(0.001f);
      for (std::int64_t c = 0; c < C; ++c) {
        const float m = static_cast<float>(p.inputs["m"].get(c));
        const float g = static_cast<float>(p.inputs["gamma"].get(c));
        const float k = hr(1.0f / std::sqrt(hr(static_cast<float>(p.inputs["v"].get(c)) + eps)));
        const float gk = scaled ? hr(k * g) : k;
        float db = 0, s2 = 0;
        for (std::int64_t r = 0; r < rows; ++r) {
          const float d = static_cast<float>(dy.get(r * C + c));
          db = hr(db + d);
          s2 = hr(s2 + hr(d * hr(static_cast<float>(t.get(r * C + c)) - m)));
          ASSERT_EQ(cpu.output("dx").tensor.get(r * C + c), hr(d * gk)) << r << "," << c;
        }
        const float k3 = hr(hr(k * hr(k * k)) * -0.5f);
        EXPECT_EQ(cpu.output("db").tensor.get(c), db) << c;
        EXPECT_EQ(cpu.output("dm").tensor.get(c), hr(-db * gk)) << c;
        EXPECT_EQ(cpu.output("dg").tensor.get(c), scaled ? hr(s2 * k) : 0.0f) << c;
        EXPECT_EQ(cpu.output("dv").tensor.get(c), hr(s2 * (scaled ? hr(k3 * g) : k3))) << c;
      }
    }
}

TEST(HalfSums, FloatRunsKeepTheirSums) {
  Problem p = overflowing_sums();
  for (auto& [name, t] : p.inputs) t = t.to(DType::F32);
  const Result cpu = run_problem(p, "cpu");
  EXPECT_NEAR(cpu.output("dm").tensor.get(0), -1000.0, 1.0);
  EXPECT_TRUE(find_causes(p, cpu, run_problem(p, "cpu-reference").outputs, {}).empty());
}

}  // namespace
}  // namespace bnscope
