// The cause catalog planted one cause at a time (and two at once) on both layouts, in float32
// and float16: the reference is cpu-reference on the truth, the candidate the cpu backend on the
// problem with the mistake; the search must name the planted cause, with its fitted value within
// 10 % where it has one, and describe noise as a pattern only.

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <random>
#include <tuple>

#include "analysis/cause_finder.h"
#include "analysis/causes/catalog.h"
#include "analysis/causes/channels.h"
#include "engine/engine.h"
#include "noisy_outputs.h"
#include "ops/bn_math.h"
#include "ops/sample.h"

namespace bnscope {
namespace {

using Param = std::tuple<DataFormat, DType>;

class Planted : public ::testing::TestWithParam<Param> {
 protected:
  DataFormat format() const { return std::get<0>(GetParam()); }
  DType dtype() const { return std::get<1>(GetParam()); }
  bool last() const { return format() == DataFormat::NHWC; }

  Problem sample(Shape shape = {2, 6, 6, 8}, bool training = true,
                 ReserveConvention conv = ReserveConvention::Variance) const {
    SampleSpec spec;
    spec.shape = std::move(shape);
    spec.format = format();
    spec.dtype = dtype();
    spec.is_training = training;
    spec.convention = conv;
    return random_problem(spec);
  }

  // The causes the search finds for `user`'s cpu run against the truth's reference outputs.
  static std::vector<Cause> search(const Problem& truth, const Problem& user,
                                   const DiffOptions& options = {}) {
    const Result expected = run_problem(truth, "cpu-reference");
    const Result got = run_problem(user, "cpu");
    EXPECT_FALSE(compare_results("expected", expected.outputs, "cpu", got.outputs, options).passed)
        << "the planted cause must make the outputs disagree";
    return find_causes(user, got, expected.outputs, options);
  }

  static const Cause* first_with(const std::vector<Cause>& causes, const std::string& code) {
    for (const Cause& c : causes)
      if (c.code == code) return &c;
    return nullptr;
  }

  static std::string codes(const std::vector<Cause>& causes) {
    std::string s;
    for (const Cause& c : causes) s += c.code + " [" + c.title + "]\n";
    return s;
  }
};

// The channel axis, per channel input and data tensor alike, reordered.
Problem permuted(const Problem& p, const std::vector<std::int64_t>& order, bool last) {
  const ChannelView v = channel_view(p.inputs.at("x").shape(), last);
  return causes::problem_on_channels(p, v, last, order);
}

void scale_tensor(Tensor& t, double k) {
  std::vector<double> v = t.to_doubles();
  for (double& d : v) d *= k;
  t = Tensor::from_doubles(t.dtype(), t.shape(), v);
}

TEST_P(Planted, EpsilonMismatchIsFittedWithinTenPercent) {
  Problem truth = sample({4, 8, 8, 8});
  truth.attrs["epsilon"] = 0.01;  // the reference's
  Problem user = truth;
  user.attrs["epsilon"] = 0.001;
  const auto causes = search(truth, user);
  ASSERT_FALSE(causes.empty());
  EXPECT_EQ(causes[0].code, "epsilon-mismatch") << codes(causes);
  EXPECT_TRUE(causes[0].resolves);
  EXPECT_NEAR(causes[0].fitted, 0.01, 0.001);
  EXPECT_EQ(causes[0].fitted_name, "epsilon");
  // The fix the app applies makes the candidate agree.
  const auto fixed = apply_cause_fix(user, causes[0]);
  ASSERT_TRUE(fixed);
  EXPECT_TRUE(compare_results("e", run_problem(truth, "cpu-reference").outputs, "c",
                              run_problem(*fixed, "cpu").outputs, {})
                  .passed);
}

TEST_P(Planted, ReserveConvention) {
  const Problem truth = sample({2, 6, 6, 8}, true, ReserveConvention::InvStd);
  Problem user = truth;
  user.convention = ReserveConvention::Variance;
  const auto causes = search(truth, user);
  ASSERT_FALSE(causes.empty());
  EXPECT_EQ(causes[0].code, "reserve-convention") << codes(causes);
  EXPECT_TRUE(causes[0].resolves);
}

TEST_P(Planted, ReserveHoldsInverseVariance) {
  Problem truth = sample();
  Problem user = truth;
  // The reference's reserve_space_2 holds 1/(var + eps); read as the variance here.
  Tensor& r = user.inputs.at("reserve_space_2");
  std::vector<double> v = r.to_doubles();
  for (double& d : v) d = 1.0 / (d + 0.001);
  r = Tensor::from_doubles(r.dtype(), r.shape(), v);
  const auto causes = search(truth, user);
  ASSERT_FALSE(causes.empty());
  EXPECT_EQ(causes[0].code, "reserve-inverse-variance") << codes(causes);
  EXPECT_TRUE(causes[0].resolves);
}

TEST_P(Planted, LayoutReadTheOtherWay) {
  const Problem truth = sample({2, 3, 4, 5});
  Problem user = truth;
  user.attrs["data_format"] = std::string(last() ? "NCHW" : "NHWC");
  const Shape other = last() ? Shape{2, 5, 3, 4} : Shape{2, 3, 4, 5};
  for (const char* name : {"x", "y_backprop"})
    user.inputs[name] = truth.inputs.at(name).reshaped(other);
  const auto causes = search(truth, user);
  ASSERT_FALSE(causes.empty());
  EXPECT_EQ(causes[0].code, "layout-swapped") << codes(causes);
  EXPECT_TRUE(causes[0].resolves);
}

TEST_P(Planted, EpsilonClampedToCudnnMinimum) {
  Problem truth = sample();
  truth.attrs["epsilon"] = kCudnnMinEpsilon;
  Problem user = truth;
  user.attrs["epsilon"] = 1e-7;
  // Small variances make the clamp visible.
  for (const char* name : {"x"}) scale_tensor(truth.inputs.at(name), 0.01);
  user.inputs = truth.inputs;
  fill_reserve_from_forward(truth);
  fill_reserve_from_forward(user);
  const auto causes = search(truth, user);
  ASSERT_FALSE(causes.empty());
  EXPECT_EQ(causes[0].code, "epsilon-clamped") << codes(causes);
  EXPECT_TRUE(causes[0].resolves);
}

TEST_P(Planted, UnbiasedVarianceInTheReference) {
  Problem truth = sample({1, 2, 3, 8});  // N = 6 values per channel: the factor is 6/5
  Problem user = truth;
  scale_tensor(truth.inputs.at("reserve_space_2"), bessel_factor(6));
  const auto causes = search(truth, user);
  ASSERT_FALSE(causes.empty());
  EXPECT_EQ(causes[0].code, "bessel-variance") << codes(causes);
  EXPECT_TRUE(causes[0].resolves);
  EXPECT_NEAR(causes[0].fitted, 1.2, 0.12);
}

TEST_P(Planted, GradientScaleIsFittedAndNamedAPowerOfTwo) {
  Problem truth = sample();
  Problem user = truth;
  scale_tensor(truth.inputs.at("y_backprop"), 1024);
  const auto causes = search(truth, user);
  ASSERT_FALSE(causes.empty());
  EXPECT_EQ(causes[0].code, "gradient-scale") << codes(causes);
  EXPECT_TRUE(causes[0].resolves);
  EXPECT_NEAR(causes[0].fitted, 1024, 102.4);
  EXPECT_NE(causes[0].title.find("2^10"), std::string::npos) << causes[0].title;
}

TEST_P(Planted, ModeFlipped) {
  Problem truth = sample();
  truth.attrs["is_training"] = false;
  Problem user = truth;
  user.attrs["is_training"] = true;
  const auto causes = search(truth, user);
  ASSERT_FALSE(causes.empty());
  EXPECT_EQ(causes[0].code, "mode-flipped") << codes(causes);
  EXPECT_TRUE(causes[0].resolves);
}

TEST_P(Planted, MovingStatisticsWhereTheBatchsWere) {
  const Problem truth = sample();
  Problem user = truth;
  Tensor& mean = user.inputs.at("reserve_space_1");
  std::vector<double> m = mean.to_doubles();
  for (double& d : m) d = 0.9 * d + 0.3;  // moving averages lag the batch
  mean = Tensor::from_doubles(mean.dtype(), mean.shape(), m);
  scale_tensor(user.inputs.at("reserve_space_2"), 1.3);
  const auto causes = search(truth, user);
  ASSERT_FALSE(causes.empty());
  EXPECT_EQ(causes[0].code, "moving-statistics") << codes(causes);
  EXPECT_TRUE(causes[0].resolves);
}

TEST_P(Planted, ScaleMissingInTheReference) {
  Problem truth = sample();
  Tensor& g = truth.inputs.at("scale");
  g = Tensor::from_doubles(g.dtype(), g.shape(), std::vector<double>(g.numel(), 1.0));
  Problem user = sample();  // a real gamma
  user.inputs.at("scale") = sample().inputs.at("scale");
  user.inputs.at("x") = truth.inputs.at("x");
  user.inputs.at("y_backprop") = truth.inputs.at("y_backprop");
  user.inputs.at("reserve_space_1") = truth.inputs.at("reserve_space_1");
  user.inputs.at("reserve_space_2") = truth.inputs.at("reserve_space_2");
  const auto causes = search(truth, user);
  ASSERT_FALSE(causes.empty());
  EXPECT_EQ(causes[0].code, "scale-missing") << codes(causes);
  EXPECT_TRUE(causes[0].resolves);
}

TEST_P(Planted, ScaleIgnoredHereIsFittedPerChannel) {
  const Problem truth = sample();
  Problem user = truth;
  Tensor& g = user.inputs.at("scale");
  g = Tensor::from_doubles(g.dtype(), g.shape(), std::vector<double>(g.numel(), 1.0));
  const auto causes = search(truth, user);
  ASSERT_FALSE(causes.empty());
  EXPECT_EQ(causes[0].code, "scale-ignored") << codes(causes);
  EXPECT_TRUE(causes[0].resolves);
  ASSERT_EQ(causes[0].fix.size(), 1u);
  const Tensor& real = truth.inputs.at("scale");
  for (std::int64_t c = 0; c < real.numel(); ++c)
    EXPECT_NEAR(causes[0].fix[0].per_channel.at(static_cast<std::size_t>(c)), real.get(c),
                0.1 * real.get(c));
}

TEST_P(Planted, InputRoundedToHalf) {
  if (dtype() != DType::F32) GTEST_SKIP() << "a float16 problem has no wider input to round";
  Problem truth = sample();
  Problem user = truth;
  truth.inputs.at("x") = truth.inputs.at("x").to(DType::F16).to(DType::F32);
  const auto causes = search(truth, user, DiffOptions{.atol = 1e-5, .rtol = 1e-5});
  ASSERT_FALSE(causes.empty());
  EXPECT_EQ(causes[0].code, "input-precision") << codes(causes);
  EXPECT_TRUE(causes[0].resolves);
  EXPECT_NE(causes[0].title.find("float16"), std::string::npos);
}

// The user chose a half type for a float32 problem and compares with outputs made in float32:
// the inputs' rounding is the whole difference, and computing in float32 again removes it.
TEST_P(Planted, ComputedInHalfAgainstAFloat32Reference) {
  if (dtype() != DType::F32) GTEST_SKIP() << "planted by converting a float32 problem";
  const Problem truth = sample({4, 8, 8, 8});
  const DiffOptions tight{.atol = 1e-5, .rtol = 1e-5};
  for (DType half : {DType::F16, DType::BF16}) {
    Problem user = truth;
    user.dtype = half;
    const auto causes = search(truth, user, tight);
    ASSERT_FALSE(causes.empty());
    EXPECT_EQ(causes[0].code, "half-computation") << codes(causes);
    EXPECT_TRUE(causes[0].resolves);
    EXPECT_NE(causes[0].title.find(dtype_name(half)), std::string::npos) << causes[0].title;
    const auto fixed = apply_cause_fix(user, causes[0]);
    ASSERT_TRUE(fixed);
    EXPECT_EQ(fixed->dtype, DType::F32);
    EXPECT_TRUE(compare_results("e", run_problem(truth, "cpu-reference").outputs, "c",
                                run_problem(*fixed, "cpu").outputs, tight)
                    .passed);
  }
}

// A half problem compared with outputs of the same half type: nothing says the reference was
// wider, so the cause is not proposed (a planted epsilon is named instead).
TEST_P(Planted, HalfAgainstHalfIsNotNamedHalfComputation) {
  if (dtype() == DType::F32) GTEST_SKIP() << "a half problem against a half reference";
  Problem truth = sample({4, 8, 8, 8});
  truth.attrs["epsilon"] = 0.01;
  Problem user = truth;
  user.attrs["epsilon"] = 0.001;
  for (const Cause& c : search(truth, user)) EXPECT_NE(c.code, "half-computation");
}

TEST_P(Planted, ChannelsPermuted) {
  const Problem user = sample();
  std::vector<std::int64_t> order = {3, 0, 1, 2, 7, 6, 5, 4};
  const Problem truth = permuted(user, order, last());
  const auto causes = search(truth, user);
  ASSERT_FALSE(causes.empty());
  EXPECT_EQ(causes[0].code, "channels-permuted") << codes(causes);
  EXPECT_TRUE(causes[0].resolves);
  ASSERT_EQ(causes[0].fix.size(), 1u);
  EXPECT_EQ(causes[0].fix[0].permutation, order);
}

TEST_P(Planted, AFewChannelsNamedWithTheirReason) {
  const Problem truth = sample();
  Problem user = truth;
  Tensor& v = user.inputs.at("reserve_space_2");
  v.set(5, 0.0);  // a zero variance in channel 5 only
  const auto causes = search(truth, user);
  const Cause* few = first_with(causes, "few-channels");
  ASSERT_NE(few, nullptr) << codes(causes);
  EXPECT_EQ(few->channels, std::vector<std::int64_t>{5});
  EXPECT_NE(few->title.find("reserve_space_2 is 0"), std::string::npos) << few->title;
  EXPECT_LE(few->after, 1);
}

// A few ULP apart everywhere, as two kernels that sum in different orders are.
TEST_P(Planted, ReductionOrderOnlyIsNotAFailure) {
  const Problem p = sample();
  const Result expected = run_problem(p, "cpu-reference");
  Result other = expected;
  other.backend = "cpu";
  std::mt19937 rng(7);
  for (OutputTensor& o : other.outputs) {
    if (!o.defined) continue;
    std::vector<double> v = o.tensor.to_doubles();
    const double ulp = o.tensor.dtype() == DType::F16 ? std::ldexp(1.0, -10) : std::ldexp(1.0, -23);
    for (double& d : v) d *= 1 + ulp * static_cast<double>(static_cast<int>(rng() % 5) - 2);
    o.tensor = Tensor::from_doubles(o.tensor.dtype(), o.tensor.shape(), v);
  }
  const DiffOptions exact{.atol = 0.0, .rtol = 0.0};
  ASSERT_FALSE(compare_results("e", expected.outputs, "c", other.outputs, exact).passed);
  const auto causes = find_causes(p, other, expected.outputs, exact);
  ASSERT_EQ(causes.size(), 1u) << codes(causes);
  EXPECT_EQ(causes[0].code, "reduction-order");
  EXPECT_TRUE(causes[0].benign);
  EXPECT_LE(causes[0].after, 1);
}

TEST_P(Planted, EpsilonAndLossScaleTogether) {
  Problem truth = sample({4, 8, 8, 8});
  truth.attrs["epsilon"] = 0.01;
  // A loss scale small enough that cpu and cpu-reference agree on the scaled sums themselves.
  scale_tensor(truth.inputs.at("y_backprop"), 8);
  Problem user = sample({4, 8, 8, 8});
  user.attrs["epsilon"] = 0.001;
  const auto causes = search(truth, user);
  ASSERT_FALSE(causes.empty());
  const std::string& code = causes[0].code;
  EXPECT_NE(code.find("epsilon-mismatch"), std::string::npos) << codes(causes);
  EXPECT_NE(code.find("gradient-scale"), std::string::npos) << codes(causes);
  EXPECT_TRUE(causes[0].resolves) << causes[0].before << " -> " << causes[0].after << " "
                                  << causes[0].explanation;
  for (const FixStep& s : causes[0].fix) {
    if (s.code == "epsilon-mismatch") EXPECT_NEAR(s.value, 0.01, 0.001) << codes(causes);
    if (s.code == "gradient-scale") EXPECT_NEAR(s.value, 8, 0.8);
  }
}

TEST_P(Planted, LayoutAndConventionTogether) {
  const Problem truth = sample({2, 3, 4, 5}, true, ReserveConvention::InvStd);
  Problem user = truth;
  user.convention = ReserveConvention::Variance;
  user.attrs["data_format"] = std::string(last() ? "NCHW" : "NHWC");
  const Shape other = last() ? Shape{2, 5, 3, 4} : Shape{2, 3, 4, 5};
  for (const char* name : {"x", "y_backprop"})
    user.inputs[name] = truth.inputs.at(name).reshaped(other);
  const auto causes = search(truth, user);
  ASSERT_FALSE(causes.empty());
  EXPECT_NE(causes[0].code.find("layout-swapped"), std::string::npos) << codes(causes);
  EXPECT_NE(causes[0].code.find("reserve-convention"), std::string::npos) << codes(causes);
  EXPECT_TRUE(causes[0].resolves);
}

TEST_P(Planted, NoiseOnlyGivesAPatternOnlyDescription) {
  const Problem p = sample();
  const Result expected = run_problem(p, "cpu-reference");
  Result noisy = run_problem(p, "cpu");
  noisy.backend = "noisy";  // a kernel of its own, off by noise
  test::add_noise(noisy.outputs);
  const auto causes = find_causes(p, noisy, expected.outputs, {});
  ASSERT_EQ(causes.size(), 1u) << codes(causes);
  EXPECT_TRUE(causes[0].pattern_only);
  EXPECT_EQ(causes[0].code, "unexplained");
  EXPECT_FALSE(causes[0].ruled_out.empty());
  EXPECT_NE(causes[0].title.find("x_backprop"), std::string::npos) << causes[0].title;
  EXPECT_NE(causes[0].title.find("noise-like"), std::string::npos) << causes[0].title;
  EXPECT_FALSE(causes[0].suggestion.empty());
}

INSTANTIATE_TEST_SUITE_P(LayoutsAndTypes, Planted,
                         ::testing::Combine(::testing::Values(DataFormat::NHWC, DataFormat::NCHW),
                                            ::testing::Values(DType::F32, DType::F16)),
                         [](const auto& info) {
                           return std::string(data_format_name(std::get<0>(info.param))) + "_" +
                                  std::string(dtype_name(std::get<1>(info.param)));
                         });

TEST(CauseCatalog, EveryRowSaysWhatItMeansAndHowItIsDetected) {
  for (const causes::CauseSpec& c : causes::cause_catalog()) {
    EXPECT_FALSE(c.name.empty()) << c.code;
    EXPECT_FALSE(c.meaning.empty()) << c.code;
    if (c.code != "unexplained") EXPECT_FALSE(c.detection.empty()) << c.code;
    EXPECT_EQ(c.fix.empty(), c.apply == nullptr) << c.code;
  }
}

}  // namespace
}  // namespace bnscope
