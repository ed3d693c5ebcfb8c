// Half accumulation planted: the reference's per-channel sums are running sums in float16 or
// bfloat16 (rounded after every add) where the problem's kernels accumulate in float32, or a
// candidate's kernel sums that way against a float32-accumulating reference. The planted outputs
// come from plain loops over n, h, w here, checked first to agree with cpu-reference when they
// keep float32 sums; the search must name "half-accumulation" on both layouts and modes, and never
// on a float32 problem, another op or noise.

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <tuple>

#include "analysis/cause_finder.h"
#include "analysis/causes/search.h"
#include "engine/engine.h"
#include "noisy_outputs.h"
#include "ops/sample.h"

// A namespace of its own: the suite's files are compiled together (unity build).
namespace bnscope::half_accumulation_test {
namespace {

using Round = float (*)(float);

float in_float(float v) {
  return v;
}
float in_half(float v) {
  return half_bits_to_float(float_to_half_bits(v));
}
float in_bf16(float v) {
  return bf16_bits_to_float(float_to_bf16_bits(v));
}

// N, H, W, C = 4, 16, 16, 8: 1024 values a channel, enough for a running sum in half to drift
// from the float32 one by more than the tolerance.
Problem sample(DataFormat format, DType dtype, bool training = true,
               std::string op = "FusedBatchNormGradV3") {
  SampleSpec spec;
  spec.op = std::move(op);
  spec.shape = {4, 16, 16, 8};
  spec.format = format;
  spec.dtype = dtype;
  spec.is_training = training;
  return random_problem(spec);
}

// FusedBatchNormGradV3's outputs with every per-channel sum rounded by `round` after each add,
// everything else in float32: x_backprop, scale_backprop and offset_backprop written over
// cpu-reference's outputs (which give the names, types and shapes).
std::vector<OutputTensor> summed_with(const Problem& p, Round round) {
  const bool last = attr_string(p, "data_format") == "NHWC";
  const bool training = attr_bool(p, "is_training");
  const Tensor& x = p.inputs.at("x");
  const Tensor& dy = p.inputs.at("y_backprop");
  const Tensor& gamma = p.inputs.at("scale");
  const Tensor& mean = p.inputs.at("reserve_space_1");
  const Tensor& var = p.inputs.at("reserve_space_2");
  const std::int64_t N = x.dim(0), C = last ? x.dim(3) : x.dim(1);
  const std::int64_t H = last ? x.dim(1) : x.dim(2), W = last ? x.dim(2) : x.dim(3);
  const auto at = [&](std::int64_t n, std::int64_t h, std::int64_t w, std::int64_t c) {
    return last ? ((n * H + h) * W + w) * C + c : ((n * C + c) * H + h) * W + w;
  };
  const auto eps = static_cast<float>(attr_float(p, "epsilon"));
  const auto M = static_cast<float>(N * H * W);

  std::vector<OutputTensor> outs = run_problem(p, "cpu-reference").outputs;
  Tensor* dx = nullptr;
  Tensor* dscale = nullptr;
  Tensor* doffset = nullptr;
  for (OutputTensor& o : outs) {
    if (o.name == "x_backprop") dx = &o.tensor;
    if (o.name == "scale_backprop") dscale = &o.tensor;
    if (o.name == "offset_backprop") doffset = &o.tensor;
  }
  EXPECT_TRUE(dx && dscale && doffset);
  if (!dx || !dscale || !doffset) return outs;
  for (std::int64_t c = 0; c < C; ++c) {
    const auto mu = static_cast<float>(mean.get(c));
    float s1 = 0, s2 = 0;
    for (std::int64_t n = 0; n < N; ++n)
      for (std::int64_t h = 0; h < H; ++h)
        for (std::int64_t w = 0; w < W; ++w) {
          const std::int64_t j = at(n, h, w, c);
          const auto g = static_cast<float>(dy.get(j));
          s1 = round(s1 + g);
          s2 = round(s2 + g * (static_cast<float>(x.get(j)) - mu));
        }
    const float k = 1.0f / std::sqrt(static_cast<float>(var.get(c)) + eps);
    const float gk = static_cast<float>(gamma.get(c)) * k;
    dscale->set(c, k * s2);
    doffset->set(c, s1);
    for (std::int64_t n = 0; n < N; ++n)
      for (std::int64_t h = 0; h < H; ++h)
        for (std::int64_t w = 0; w < W; ++w) {
          const std::int64_t j = at(n, h, w, c);
          const auto g = static_cast<float>(dy.get(j));
          const float xc = static_cast<float>(x.get(j)) - mu;
          dx->set(j, training ? gk * (g - s1 / M - xc * k * k * s2 / M) : gk * g);
        }
  }
  return outs;
}

std::string codes(const std::vector<Cause>& causes) {
  std::string s;
  for (const Cause& c : causes) s += c.code + " [" + c.title + "]\n";
  return s;
}

bool names_half_accumulation(const std::vector<Cause>& causes) {
  for (const Cause& c : causes)
    if (c.code.find("half-accumulation") != std::string::npos) return true;
  return false;
}

bool agree(const std::vector<OutputTensor>& expected, const std::vector<OutputTensor>& got) {
  return compare_results("expected", expected, "got", got, {}).passed;
}

using Param = std::tuple<DataFormat, DType, bool>;

class HalfAccumulation : public ::testing::TestWithParam<Param> {
 protected:
  DataFormat format() const { return std::get<0>(GetParam()); }
  DType dtype() const { return std::get<1>(GetParam()); }
  bool training() const { return std::get<2>(GetParam()); }
  Round round() const { return dtype() == DType::BF16 ? in_bf16 : in_half; }
  std::string type_name() const { return dtype() == DType::BF16 ? "bfloat16" : "float16"; }
};

// The loops above are the op: with float32 sums they agree with the float64 oracle.
TEST_P(HalfAccumulation, ThePlantedLoopsAreTheOpWhenTheySumInFloat32) {
  const Problem p = sample(format(), dtype(), training());
  EXPECT_TRUE(agree(run_problem(p, "cpu-reference").outputs, summed_with(p, in_float)));
}

TEST_P(HalfAccumulation, TheReferenceSummedInHalf) {
  const Problem p = sample(format(), dtype(), training());
  const std::vector<OutputTensor> reference = summed_with(p, round());
  const Result cpu = run_problem(p, "cpu");
  ASSERT_FALSE(agree(reference, cpu.outputs)) << "half sums must differ beyond the tolerance";
  const auto causes = find_causes(p, cpu, reference, {});
  ASSERT_FALSE(causes.empty());
  const Cause& c = causes.front();
  EXPECT_EQ(c.code, "half-accumulation") << codes(causes);
  EXPECT_TRUE(c.resolves) << c.before << " -> " << c.after;
  EXPECT_GT(c.before, 1);
  EXPECT_FALSE(c.in_kernel);
  EXPECT_NE(c.title.find("accumulated the per-channel sums in " + type_name()), std::string::npos)
      << c.title;
  EXPECT_TRUE(c.fix.empty()) << "how the reference sums is not a change to the problem";
  std::string why;
  EXPECT_FALSE(apply_cause_fix(p, c, &why).has_value());
  EXPECT_NE(why.find("half-accumulation"), std::string::npos) << why;
}

TEST_P(HalfAccumulation, ACandidateKernelSumsInHalf) {
  const Problem p = sample(format(), dtype(), training());
  Result kernel;
  kernel.op = p.op;
  kernel.backend = "my-kernel";
  kernel.outputs = summed_with(p, round());
  const Result reference = run_problem(p, "cpu-reference");
  ASSERT_FALSE(agree(reference.outputs, kernel.outputs));
  const auto causes = find_causes(p, kernel, reference.outputs, {});
  ASSERT_FALSE(causes.empty());
  const Cause& c = causes.front();
  EXPECT_EQ(c.code, "half-accumulation") << codes(causes);
  EXPECT_TRUE(c.in_kernel);
  EXPECT_TRUE(c.resolves) << c.before << " -> " << c.after;
  EXPECT_EQ(c.candidate, "my-kernel");
  EXPECT_EQ(c.title.rfind("the kernel accumulates the per-channel sums in " + type_name(), 0), 0u)
      << c.title;
  EXPECT_TRUE(c.fix.empty());
}

// Two causes at once: the reference used another epsilon and summed in half. The epsilon is
// fitted through the recomputed half sums, and nothing in the problem fixes the sums.
TEST_P(HalfAccumulation, TogetherWithAnEpsilonMismatch) {
  Problem truth = sample(format(), dtype(), training());
  truth.attrs["epsilon"] = 0.01;
  const std::vector<OutputTensor> reference = summed_with(truth, round());
  Problem user = truth;
  user.attrs["epsilon"] = 0.001;
  const Result cpu = run_problem(user, "cpu");
  ASSERT_FALSE(agree(reference, cpu.outputs));
  const auto causes = find_causes(user, cpu, reference, {});
  ASSERT_FALSE(causes.empty());
  const Cause& c = causes.front();
  EXPECT_NE(c.code.find("epsilon-mismatch"), std::string::npos) << codes(causes);
  EXPECT_TRUE(names_half_accumulation({c})) << codes(causes);
  EXPECT_TRUE(c.resolves) << c.before << " -> " << c.after;
  EXPECT_EQ(c.fitted_name, "epsilon");
  EXPECT_NEAR(c.fitted, 0.01, 0.001);
  // The epsilon is the problem's part; the half sums are the reference's, no change makes them.
  ASSERT_EQ(c.fix.size(), 1u);
  EXPECT_EQ(c.fix[0].code, "epsilon-mismatch");
  EXPECT_TRUE(c.partial_fix);
  const auto fixed = apply_cause_fix(user, c);
  ASSERT_TRUE(fixed);
  EXPECT_NEAR(attr_float(*fixed, "epsilon"), 0.01, 0.001);
  // What is left once it is applied is the reference's half sums alone.
  const Result again = run_problem(*fixed, "cpu");
  const auto left = find_causes(*fixed, again, reference, {});
  ASSERT_FALSE(left.empty());
  EXPECT_EQ(left.front().code, "half-accumulation") << codes(left);
  EXPECT_TRUE(left.front().resolves);
  EXPECT_FALSE(left.front().partial_fix);
}

// Noise of a kernel of its own (and of the cpu backend's run itself) is not half accumulation.
TEST_P(HalfAccumulation, NoiseIsNotHalfAccumulation) {
  const Problem p = sample(format(), dtype(), training());
  const Result reference = run_problem(p, "cpu-reference");
  for (const char* backend : {"cpu", "noisy"}) {
    Result noisy = run_problem(p, "cpu");
    noisy.backend = backend;
    test::add_noise(noisy.outputs);
    ASSERT_FALSE(agree(reference.outputs, noisy.outputs));
    const auto causes = find_causes(p, noisy, reference.outputs, {});
    EXPECT_FALSE(names_half_accumulation(causes)) << backend << ":\n" << codes(causes);
  }
}

INSTANTIATE_TEST_SUITE_P(LayoutsTypesModes, HalfAccumulation,
                         ::testing::Combine(::testing::Values(DataFormat::NHWC, DataFormat::NCHW),
                                            ::testing::Values(DType::F16, DType::BF16),
                                            ::testing::Bool()),
                         [](const auto& info) {
                           return std::string(data_format_name(std::get<0>(info.param))) + "_" +
                                  std::string(dtype_name(std::get<1>(info.param))) + "_" +
                                  std::string(mode_name(std::get<2>(info.param)));
                         });

// The detector's trial for the problem as given, with the cpu backend as the candidate.
std::vector<causes::Trial> proposed(const Problem& p) {
  const OpSpec* op = find_op(p.op);
  EXPECT_NE(op, nullptr);
  if (!op) return {};
  const Result cpu = run_problem(p, "cpu");
  const Result reference = run_problem(p, "cpu-reference");
  const Comparison before = compare_results("expected", reference.outputs, "cpu", cpu.outputs, {});
  const causes::Search s(p, *op, cpu, reference.outputs, {}, before, {});
  return causes::detect_half_accumulation(s, causes::Trial{});
}

TEST(HalfAccumulationDetector, ProposedForHalfFusedGradsOnly) {
  EXPECT_EQ(proposed(sample(DataFormat::NHWC, DType::F16)).size(), 1u);
  EXPECT_EQ(proposed(sample(DataFormat::NCHW, DType::BF16, false)).size(), 1u);
  EXPECT_TRUE(proposed(sample(DataFormat::NHWC, DType::F32)).empty());
  SampleSpec global;
  global.op = "BatchNormWithGlobalNormalizationGrad";
  global.shape = {2, 4, 4, 8};
  global.dtype = DType::F16;
  EXPECT_TRUE(proposed(random_problem(global)).empty()) << "its half kernel is half-sum-overflow's";
}

// A float32 problem against outputs whose sums were taken in half: the problem's data type is
// float32, so the finder names no half accumulation (there is no half data to sum).
TEST(HalfAccumulationDetector, NotNamedOnAFloat32Problem) {
  for (DataFormat f : {DataFormat::NHWC, DataFormat::NCHW}) {
    const Problem p = sample(f, DType::F32);
    const std::vector<OutputTensor> reference = summed_with(p, in_half);
    const Result cpu = run_problem(p, "cpu");
    ASSERT_FALSE(agree(reference, cpu.outputs));
    const auto causes = find_causes(p, cpu, reference, {});
    EXPECT_FALSE(names_half_accumulation(causes)) << codes(causes);
  }
}

}  // namespace
}  // namespace bnscope::half_accumulation_test
