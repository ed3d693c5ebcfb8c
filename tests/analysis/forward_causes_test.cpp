// Causes of a forward op's difference: a reference whose training forward blended the running
// statistics with another exponential_avg_factor is named with the fitted factor and fixed by it,
// one whose reserve_space_2 holds the other convention is named, in both layouts and in float32
// and float16; where nothing fits, the pattern is read from the outputs that fail.

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <tuple>

#include "analysis/cause_finder.h"
#include "engine/engine.h"
#include "noisy_outputs.h"
#include "ops/sample.h"

namespace bnscope {
namespace {

using Param = std::tuple<DataFormat, DType>;

class ForwardCauses : public ::testing::TestWithParam<Param> {
 protected:
  Problem sample(double factor) const {
    SampleSpec spec;
    spec.op = "FusedBatchNormV3";
    spec.shape = {4, 6, 6, 8};
    spec.format = std::get<0>(GetParam());
    spec.dtype = std::get<1>(GetParam());
    spec.is_training = true;
    spec.seed = 17;
    Problem p = random_problem(spec);
    p.attrs["exponential_avg_factor"] = factor;
    return p;
  }
};

std::string codes(const std::vector<Cause>& causes) {
  std::string s;
  for (const Cause& c : causes) s += c.code + " [" + c.title + "]\n";
  return s;
}

bool agree(const std::vector<OutputTensor>& a, const std::vector<OutputTensor>& b) {
  return compare_results("a", a, "b", b, {}).passed;
}

// The causes the search finds for user's cpu run against the truth's reference outputs, and the
// first one's fix applied to user.
struct Found {
  std::vector<Cause> causes;
  std::optional<Problem> fixed;
  std::vector<OutputTensor> expected;
};

Found search(const Problem& truth, const Problem& user) {
  Found f;
  f.expected = run_problem(truth, "cpu-reference").outputs;
  const Result got = run_problem(user, "cpu");
  EXPECT_FALSE(agree(f.expected, got.outputs)) << "the planted cause must make them disagree";
  f.causes = find_causes(user, got, f.expected, {});
  if (!f.causes.empty()) f.fixed = apply_cause_fix(user, f.causes[0]);
  return f;
}

TEST_P(ForwardCauses, AnotherAverageFactorIsFittedAndFixed) {
  // The reference blended (a Keras momentum of 0.4, or none: factor 1); this problem did not, or
  // did by another factor.
  for (auto [truth_factor, user_factor] : {std::pair{0.6, 1.0}, {1.0, 0.3}, {0.01, 0.1}}) {
    SCOPED_TRACE("reference " + std::to_string(truth_factor) + ", problem " +
                 std::to_string(user_factor));
    const Problem truth = sample(truth_factor);
    ASSERT_GT(truth.inputs.at("mean").numel(), 0) << "the sample has running statistics";
    const Found f = search(truth, sample(user_factor));
    ASSERT_FALSE(f.causes.empty());
    const Cause& c = f.causes[0];
    EXPECT_EQ(c.code, "exponential-avg-factor") << codes(f.causes);
    EXPECT_TRUE(c.resolves) << c.before << " -> " << c.after;
    EXPECT_NEAR(c.fitted, truth_factor, 0.01 * truth_factor) << codes(f.causes);
    EXPECT_EQ(c.fitted_name, "exponential_avg_factor");
    ASSERT_TRUE(f.fixed);
    EXPECT_TRUE(agree(f.expected, run_problem(*f.fixed, "cpu").outputs));
  }
}

// A reference made on a GPU keeps 1/sqrt(variance + epsilon) in reserve_space_2.
TEST_P(ForwardCauses, TheReserveConventionOfTheReference) {
  for (ReserveConvention truth_conv : {ReserveConvention::InvStd, ReserveConvention::Variance}) {
    Problem truth = sample(1.0);
    truth.convention = truth_conv;
    Problem user = truth;
    user.convention = truth_conv == ReserveConvention::InvStd ? ReserveConvention::Variance
                                                              : ReserveConvention::InvStd;
    const Found f = search(truth, user);
    ASSERT_FALSE(f.causes.empty());
    EXPECT_EQ(f.causes[0].code, "reserve-convention") << codes(f.causes);
    EXPECT_TRUE(f.causes[0].resolves);
    ASSERT_TRUE(f.fixed);
    EXPECT_EQ(f.fixed->convention, truth_conv);
  }
}

TEST_P(ForwardCauses, TheSameFactorIsNoCause) {
  const Problem p = sample(0.6);
  const Result expected = run_problem(p, "cpu-reference");
  Result noisy = run_problem(p, "cpu");
  noisy.backend = "noisy";
  test::add_noise(noisy.outputs);
  for (const Cause& c : find_causes(p, noisy, expected.outputs, {}))
    EXPECT_NE(c.code, "exponential-avg-factor") << c.title;
}

// Only the per-channel outputs differ: the pattern counts their channels, not y's (which agree).
TEST_P(ForwardCauses, ThePatternIsReadFromTheOutputsThatFail) {
  const Problem p = sample(1.0);
  const Result expected = run_problem(p, "cpu-reference");
  Result off = run_problem(p, "cpu");
  off.backend = "off";
  for (OutputTensor& o : off.outputs)
    if (o.name == "batch_variance") {
      std::vector<double> v = o.tensor.to_doubles();
      for (std::size_t c = 0; c < v.size(); c += 2) v[c] *= 1.5 + 0.1 * static_cast<double>(c);
      o.tensor = Tensor::from_doubles(o.tensor.dtype(), o.tensor.shape(), v);
    }
  const auto causes = find_causes(p, off, expected.outputs, {});
  ASSERT_FALSE(causes.empty());
  const Cause& last = causes.back();
  ASSERT_TRUE(last.pattern_only) << codes(causes);
  EXPECT_NE(last.title.find("batch_variance only differs"), std::string::npos) << last.title;
  EXPECT_NE(last.title.find("on 4 of 8 channels"), std::string::npos) << last.title;
}

INSTANTIATE_TEST_SUITE_P(LayoutsAndTypes, ForwardCauses,
                         ::testing::Combine(::testing::Values(DataFormat::NHWC, DataFormat::NCHW),
                                            ::testing::Values(DType::F32, DType::F16)),
                         [](const auto& info) {
                           return std::string(data_format_name(std::get<0>(info.param))) + "_" +
                                  std::string(dtype_name(std::get<1>(info.param)));
                         });

}  // namespace
}  // namespace bnscope
