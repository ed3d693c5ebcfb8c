// BNSCOPE_SIMD at the command line: each vector target this build has and this CPU runs is
// named in the cpu backend's description and gives the same output bits; any other value is
// refused before anything runs.

#include <gtest/gtest.h>
#include <hwy/targets.h>
#include <stdlib.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "cli_harness.h"
#include "ops/sample.h"
#include "tensor/layout.h"

namespace bnscope::test {
namespace {

// BNSCOPE_SIMD for the commands run while it lives.
class SimdVariable {
 public:
  explicit SimdVariable(const std::string& value) { ::setenv("BNSCOPE_SIMD", value.c_str(), 1); }
  ~SimdVariable() { ::unsetenv("BNSCOPE_SIMD"); }
};

std::string cpu_line_of_help() {
  const CliRun r = run_cli({"--help"});
  const std::size_t at = r.out.find("\n  cpu ");
  if (at == std::string::npos) return "";
  return r.out.substr(at + 1, r.out.find('\n', at + 1) - at - 1);
}

// The problems whose passes take the vector loops: channels-last rows of 64 lanes and 17 (a
// tail past every vector width), channels-first planes, training and inference mode, 16-bit.
std::vector<SampleSpec> problems() {
  const auto spec = [](Shape shape, DataFormat format, bool training, DType dtype) {
    return SampleSpec{.shape = std::move(shape),
                      .format = format,
                      .is_training = training,
                      .dtype = dtype,
                      .seed = 11};
  };
  return {spec({4, 9, 9, 64}, DataFormat::NHWC, true, DType::F32),
          spec({3, 7, 5, 17}, DataFormat::NHWC, false, DType::F32),
          spec({2, 33, 31, 6}, DataFormat::NCHW, true, DType::F32),
          spec({4, 9, 9, 64}, DataFormat::NHWC, true, DType::BF16),
          spec({2, 17, 9, 24}, DataFormat::NCHW, true, DType::F16)};
}

// x_backprop's bytes for each problem, run under the current environment.
std::vector<std::string> dx_files(const std::vector<SampleSpec>& specs) {
  std::vector<std::string> out;
  for (const SampleSpec& s : specs) {
    TempDir dir;
    const Problem p = random_problem(s);
    const CliRun r = run_cli(
        with({"run", "--op", p.op, "--backend", "cpu", "--attr",
              "data_format=" + std::string(data_format_name(s.format)), "--attr",
              s.is_training ? "is_training=true" : "is_training=false", "--out", dir.path("out")},
             input_flags(p, dir)));
    EXPECT_EQ(r.status, 0) << r.err;
    out.push_back(slurp(dir.path("out/x_backprop.npy")));
    EXPECT_FALSE(out.back().empty());
  }
  return out;
}

TEST(CliSimd, EveryTargetIsNamedAndGivesTheSameBits) {
  const std::vector<SampleSpec> specs = problems();
  const std::vector<std::string> uncapped = dx_files(specs);
  const std::vector<std::int64_t> targets = hwy::SupportedAndGeneratedTargets();
  ASSERT_FALSE(targets.empty());
  for (const std::int64_t target : targets) {
    const std::string name = hwy::TargetName(target);
    SCOPED_TRACE(name);
    const SimdVariable cap(name);
    const std::string shown = name.rfind("AVX3", 0) == 0 ? "AVX-512" : name;
    EXPECT_NE(cpu_line_of_help().find("(" + shown + " vectors)"), std::string::npos)
        << cpu_line_of_help();
    EXPECT_EQ(dx_files(specs), uncapped);
  }
  // Any case: the lowest target spelled in lower case.
  const std::string last = hwy::TargetName(targets.back());
  std::string lower = last;
  std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
  const SimdVariable cap(lower);
  EXPECT_NE(cpu_line_of_help().find("(" + last + " vectors)"), std::string::npos)
      << cpu_line_of_help();
}

TEST(CliSimd, AnUnknownTargetIsRefusedInOneLine) {
  const SimdVariable cap("AVX1024");
  TempDir dir;
  const Problem p = random_problem(problems()[0]);
  const CliRun r =
      run_cli(with({"run", "--op", p.op, "--out", dir.path("out")}, input_flags(p, dir)));
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("BNSCOPE_SIMD expects a vector target"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("'AVX1024'"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_TRUE(dir.files("out").empty());
  EXPECT_NE(cpu_line_of_help().find("BNSCOPE_SIMD not understood"), std::string::npos);
}

}  // namespace
}  // namespace bnscope::test
