// A candidate kernel's own mistake: the problem is right (the cpu backend on it agrees with the
// reference), the candidate's outputs are what a kernel with one planted mistake computes, and
// the search must name that mistake as the kernel's, with nothing in the problem to fix.

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "analysis/cause_finder.h"
#include "analysis/pipeline.h"
#include "engine/engine.h"
#include "ops/sample.h"

namespace bnscope {
namespace {

Problem sample(DataFormat format, Shape shape = {2, 6, 6, 8}) {
  SampleSpec spec;
  spec.shape = std::move(shape);
  spec.format = format;
  spec.is_training = true;
  return random_problem(spec);
}

// The outputs a kernel computes that runs `as_run` instead of the problem it was given, named as
// another backend's.
Result kernel_outputs(const Problem& as_run) {
  Result r = run_problem(as_run, "cpu");
  r.backend = "my-kernel";
  return r;
}

std::vector<Cause> search(const Problem& problem, const Result& kernel) {
  const Result expected = run_problem(problem, "cpu-reference");
  EXPECT_FALSE(
      compare_results("expected", expected.outputs, kernel.backend, kernel.outputs, {}).passed)
      << "the planted mistake must make the outputs disagree";
  return find_causes(problem, kernel, expected.outputs, {});
}

std::string codes(const std::vector<Cause>& causes) {
  std::string s;
  for (const Cause& c : causes) s += c.code + " [" + c.title + "]\n";
  return s;
}

void expect_kernel_cause(const Problem& p, const std::vector<Cause>& causes,
                         const std::string& code) {
  ASSERT_FALSE(causes.empty());
  const Cause& c = causes.front();
  EXPECT_EQ(c.code, code) << codes(causes);
  EXPECT_TRUE(c.in_kernel);
  EXPECT_TRUE(c.resolves) << "the mistake reproduces the kernel's outputs: " << c.after;
  EXPECT_EQ(c.candidate, "my-kernel");
  EXPECT_TRUE(c.fix.empty()) << "nothing in the problem to fix";
  std::string why;
  EXPECT_FALSE(apply_cause_fix(p, c, &why).has_value());
}

TEST(KernelCauses, ReserveReadInTheOtherConvention) {
  const Problem p = sample(DataFormat::NHWC);
  Problem misread = p;  // the kernel reads the variance as 1/sqrt(variance + epsilon)
  misread.convention = ReserveConvention::InvStd;
  const auto causes = search(p, kernel_outputs(misread));
  expect_kernel_cause(p, causes, "reserve-convention");
  EXPECT_NE(causes.front().title.find("the kernel reads reserve_space_2 as 1/sqrt"),
            std::string::npos)
      << causes.front().title;
}

TEST(KernelCauses, NchwBuffersIndexedAsNhwc) {
  const Problem p = sample(DataFormat::NCHW, {2, 3, 4, 5});  // logical N, H, W, C: [2,5,3,4]
  // The kernel takes the NCHW bytes for N, H, W, C ones and writes dx the same way.
  ASSERT_EQ(p.inputs.at("x").shape(), (Shape{2, 5, 3, 4}));
  Problem misread = p;
  misread.attrs["data_format"] = std::string("NHWC");
  for (const char* name : {"x", "y_backprop"})
    misread.inputs[name] = p.inputs.at(name).reshaped({2, 3, 4, 5});
  Result kernel = kernel_outputs(misread);
  for (OutputTensor& o : kernel.outputs)
    if (o.defined && o.tensor.rank() == 4) o.tensor = o.tensor.reshaped({2, 5, 3, 4});
  const auto causes = search(p, kernel);
  expect_kernel_cause(p, causes, "layout-swapped");
  EXPECT_EQ(causes.front().title, "the kernel indexes NCHW buffers as NHWC");
}

TEST(KernelCauses, EpsilonOfItsOwn) {
  Problem p = sample(DataFormat::NHWC, {4, 8, 8, 8});
  p.attrs["epsilon"] = 0.01;
  Problem misread = p;  // the kernel uses PyTorch's default whatever it is given
  misread.attrs["epsilon"] = 1e-5;
  const auto causes = search(p, kernel_outputs(misread));
  expect_kernel_cause(p, causes, "epsilon-mismatch");
  EXPECT_NEAR(causes.front().fitted, 1e-5, 1e-6);
}

TEST(KernelCauses, NoiseInTheKernelIsAPatternNotAMistake) {
  const Problem p = sample(DataFormat::NHWC);
  Result kernel = kernel_outputs(p);
  std::mt19937 rng(3);
  std::normal_distribution<double> noise(0, 1);
  for (OutputTensor& o : kernel.outputs) {
    if (!o.defined || o.name != "x_backprop") continue;
    std::vector<double> v = o.tensor.to_doubles();
    for (double& d : v) d += 0.05 * noise(rng);
    o.tensor = Tensor::from_doubles(o.tensor.dtype(), o.tensor.shape(), v);
  }
  const auto causes = search(p, kernel);
  ASSERT_FALSE(causes.empty());
  EXPECT_TRUE(causes.front().pattern_only) << codes(causes);
  EXPECT_FALSE(causes.front().in_kernel);
  EXPECT_NE(causes.front().title.find("my-kernel's own"), std::string::npos)
      << causes.front().title;
}

// Two kernels that differ by a few ULP only, each saying what it ran: the benign cause names
// both ("reduction order (oneDNN vs Eigen)").
TEST(KernelCauses, SummationOrderBetweenTwoRealKernelsNamesBoth) {
  const Problem p = sample(DataFormat::NHWC);
  Result eigen = run_problem(p, "cpu-reference");
  eigen.backend = "tf-eigen";
  eigen.notes.push_back(
      {NoteKind::Info, "code-path", "tf-eigen ran TensorFlow 2.21.0, CPU, Eigen"});
  Result onednn = eigen;
  onednn.backend = "tf-onednn";
  onednn.notes.back().message = "tf-onednn ran TensorFlow 2.21.0, CPU, oneDNN";
  std::mt19937 rng(5);
  for (OutputTensor& o : onednn.outputs) {
    if (!o.defined) continue;
    std::vector<double> v = o.tensor.to_doubles();
    for (double& d : v) d *= 1 + std::ldexp(1.0, -23) * static_cast<double>(rng() % 3);
    o.tensor = Tensor::from_doubles(o.tensor.dtype(), o.tensor.shape(), v);
  }
  PipelineResult runs;
  runs.reference = "tf-eigen";
  runs.expected = eigen.outputs;
  runs.runs = {eigen, onednn};
  const PipelineResult r = recompare(p, runs, DiffOptions{.atol = 0.0, .rtol = 0.0}, true);
  ASSERT_EQ(r.causes.size(), 1u) << codes(r.causes);
  EXPECT_EQ(r.causes[0].code, "reduction-order");
  EXPECT_EQ(r.causes[0].title.rfind("reduction order (oneDNN vs Eigen): ", 0), 0u)
      << r.causes[0].title;
}

}  // namespace
}  // namespace bnscope
