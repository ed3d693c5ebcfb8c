#include "analysis/cause_finder.h"

#include <gtest/gtest.h>

#include "engine/engine.h"
#include "ops/bn_math.h"
#include "ops/sample.h"

namespace bnscope {
namespace {

TEST(CauseFinder, NamesTheFlippedReserveConvention) {
  SampleSpec spec;
  spec.shape = {2, 3, 4, 6};
  spec.convention = ReserveConvention::InvStd;  // reserve_space_2 holds 1/sqrt(var + eps)
  const Problem truth = random_problem(spec);
  const Result expected = run_problem(truth, "cpu-reference");
  Problem user = truth;
  user.convention = ReserveConvention::Variance;  // the trap
  const Result got = run_problem(user, "cpu");
  ASSERT_FALSE(compare_results("expected", expected.outputs, "cpu", got.outputs, {}).passed);

  const std::vector<Cause> causes =
      find_causes(user, run_problem(user, "cpu"), expected.outputs, {});
  ASSERT_FALSE(causes.empty());
  EXPECT_EQ(causes[0].code, "reserve-convention");
  EXPECT_TRUE(causes[0].resolves);
  EXPECT_GT(causes[0].before, 1);
  EXPECT_LE(causes[0].after, 1);
  for (const Cause& c : causes) EXPECT_NE(c.code, "layout-swapped");
}

TEST(CauseFinder, NamesNchwDataReadAsNhwc) {
  SampleSpec spec;
  spec.shape = {2, 3, 4, 5};  // logical N,H,W,C
  spec.format = DataFormat::NCHW;
  const Problem truth = random_problem(spec);  // x: [2,5,3,4]
  const Result expected = run_problem(truth, "cpu-reference");
  Problem user = truth;
  user.attrs["data_format"] = std::string("NHWC");
  for (const char* name : {"x", "y_backprop"})
    user.inputs[name] = truth.inputs.at(name).reshaped({2, 3, 4, 5});  // same bytes
  const std::vector<Cause> causes =
      find_causes(user, run_problem(user, "cpu"), expected.outputs, {});
  ASSERT_FALSE(causes.empty());
  EXPECT_EQ(causes[0].code, "layout-swapped");
  EXPECT_TRUE(causes[0].resolves);
  EXPECT_NE(causes[0].title.find("NCHW"), std::string::npos);
}

TEST(CauseFinder, NamesNhwcDataReadAsNchw) {
  SampleSpec spec;
  spec.shape = {2, 3, 4, 5};
  const Problem truth = random_problem(spec);  // NHWC x: [2,3,4,5]
  const Result expected = run_problem(truth, "cpu-reference");
  Problem user = truth;
  user.attrs["data_format"] = std::string("NCHW");
  for (const char* name : {"x", "y_backprop"})
    user.inputs[name] = truth.inputs.at(name).reshaped({2, 5, 3, 4});
  const std::vector<Cause> causes =
      find_causes(user, run_problem(user, "cpu"), expected.outputs, {});
  ASSERT_FALSE(causes.empty());
  EXPECT_EQ(causes[0].code, "layout-swapped");
  EXPECT_TRUE(causes[0].resolves);
}

// Applied, the layout fix declares the bytes in their own layout: the same buffers (no copy of a
// real layer), and the outputs then agree with the reference's element for element.
TEST(CauseFinder, TheLayoutFixDeclaresTheOtherLayoutOnTheSameBuffers) {
  for (const int rank : {4, 5}) {
    SampleSpec spec;
    spec.shape = rank == 4 ? Shape{2, 3, 4, 5} : Shape{2, 3, 2, 4, 5};  // logical, channels last
    spec.format = rank == 4 ? DataFormat::NCHW : DataFormat::NCDHW;
    const Problem truth = random_problem(spec);
    const Result expected = run_problem(truth, "cpu-reference");
    Problem user = truth;
    user.attrs["data_format"] = std::string(rank == 4 ? "NHWC" : "NDHWC");
    for (const char* name : {"x", "y_backprop"})
      user.inputs[name] = truth.inputs.at(name).reshaped(spec.shape);  // same bytes
    const std::vector<Cause> causes =
        find_causes(user, run_problem(user, "cpu"), expected.outputs, {});
    ASSERT_FALSE(causes.empty());
    ASSERT_EQ(causes[0].code, "layout-swapped");
    std::string why;
    const std::optional<Problem> fixed = apply_cause_fix(user, causes[0], &why);
    ASSERT_TRUE(fixed) << why;
    EXPECT_EQ(attr_string(*fixed, "data_format"), rank == 4 ? "NCHW" : "NCDHW");
    for (const char* name : {"x", "y_backprop"}) {
      EXPECT_TRUE(fixed->inputs.at(name).shares_storage_with(user.inputs.at(name))) << name;
      EXPECT_EQ(fixed->inputs.at(name).shape(), truth.inputs.at(name).shape()) << name;
    }
    EXPECT_TRUE(compare_results("expected", expected.outputs, "fixed",
                                run_problem(*fixed, "cpu").outputs, {})
                    .passed)
        << rank;
  }
}

TEST(CauseFinder, ReinterpretIsTheInverseOfTheLayoutMixUp) {
  const Tensor nchw =
      Tensor::from_doubles(DType::F64, {1, 2, 1, 3}, std::vector<double>{0, 1, 2, 3, 4, 5});
  const Tensor misread = nchw.reshaped({1, 1, 3, 2});  // declared NHWC
  const Tensor fixed = reinterpret_other_layout(misread, true);
  const Tensor expect = to_channels_last(nchw);
  EXPECT_EQ(fixed.shape(), expect.shape());
  EXPECT_EQ(fixed.to_doubles(), expect.to_doubles());
}

TEST(CauseFinder, NamesEpsilonBelowCudnnMinimum) {
  SampleSpec spec;
  spec.shape = {2, 3, 4, 6};
  Problem truth = random_problem(spec);
  // Variances near 1e-6, where epsilon decides the result.
  for (const char* name : {"x"}) {
    Tensor& t = truth.inputs.at(name);
    for (std::int64_t i = 0; i < t.numel(); ++i) t.set(i, t.get(i) * 1e-3);
  }
  truth.attrs["epsilon"] = kCudnnMinEpsilon;
  fill_reserve_from_forward(truth);
  const Result expected = run_problem(truth, "cpu-reference");
  Problem user = truth;
  user.attrs["epsilon"] = 1e-8;
  const std::vector<Cause> causes =
      find_causes(user, run_problem(user, "cpu"), expected.outputs, {});
  ASSERT_FALSE(causes.empty());
  EXPECT_EQ(causes[0].code, "epsilon-clamped");
  EXPECT_TRUE(causes[0].resolves);
}

TEST(CauseFinder, NamesHalfOverflow) {
  SampleSpec spec;
  spec.shape = {1, 2, 2, 3};
  spec.op = "BatchNormWithGlobalNormalizationGrad";
  spec.dtype = DType::F32;
  Problem truth = random_problem(spec);
  Tensor& dy = truth.inputs.at("backprop");
  for (std::int64_t i = 0; i < dy.numel(); ++i) dy.set(i, dy.get(i) * 3e4);  // dg sums beyond 65504
  const Result expected = run_problem(truth, "cpu-reference");
  Problem user = truth;
  user.dtype = DType::F16;  // float32 data run as half: the large gradients overflow
  const std::vector<Cause> causes =
      find_causes(user, run_problem(user, "cpu-reference"), expected.outputs, {});
  ASSERT_FALSE(causes.empty());
  EXPECT_EQ(causes[0].code, "half-overflow");
  EXPECT_LT(causes[0].after, causes[0].before);
}

TEST(CauseFinder, AgreeingRunsHaveNoCause) {
  SampleSpec spec;
  spec.shape = {2, 2, 2, 3};
  const Problem p = random_problem(spec);
  const Result expected = run_problem(p, "cpu-reference");
  EXPECT_TRUE(find_causes(p, run_problem(p, "cpu"), expected.outputs, {}).empty());
}

}  // namespace
}  // namespace bnscope
