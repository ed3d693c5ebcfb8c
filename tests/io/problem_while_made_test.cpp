// save_problem_while_made against save_problem: the same bytes whether or not the early members
// went out beside the rest of the work, and the earlier file kept when the work fails.

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

#include "io/problem_io.h"
#include "io_test_util.h"
#include "ops/sample.h"

namespace bnscope {
namespace {

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

SampleSpec spec_of(const std::string& op, DataFormat format, DType dtype) {
  SampleSpec s;
  s.op = op;
  s.format = format;
  s.dtype = dtype;
  s.shape = {3, 5, 4, 7};
  s.seed = 11;
  return s;
}

TEST(ProblemWhileMade, SameBytesAsSaveProblem) {
  test::ScratchDir dir;
  struct Case {
    const char* op;
    DataFormat format;
    DType dtype;
  };
  const Case cases[] = {{"FusedBatchNormGradV3", DataFormat::NHWC, DType::F32},
                        {"FusedBatchNormGradV3", DataFormat::NCHW, DType::F16},
                        {"FusedBatchNormGrad", DataFormat::NHWC, DType::F32},
                        {"BatchNormWithGlobalNormalizationGrad", DataFormat::NHWC, DType::F64},
                        {"FusedBatchNormV3", DataFormat::NCHW, DType::BF16}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.op);
    const SampleSpec spec = spec_of(c.op, c.format, c.dtype);
    save_problem(dir / "plain.npz", random_problem(spec));
    const OpSpec& op = *find_op(c.op);
    const std::string last(op.is_grad ? op.gradient_input() : "");
    int calls = 0;
    std::size_t ready = 0;
    save_problem_while_made(dir / "made.npz", last, [&](ProblemStream& stream) {
      SampleHooks hooks;
      hooks.before_gradient = [&](const Problem& p) {
        ++calls;
        stream.started(p);
      };
      hooks.gradient_ready = [&](const Tensor& t, std::size_t n) {
        EXPECT_GE(n, ready);
        ready = n;
        stream.last_ready(t, n);
      };
      return random_problem(spec, hooks);
    });
    EXPECT_EQ(calls, op.is_grad ? 1 : 0);
    if (op.is_grad) {
      EXPECT_GT(ready, 0u);
    }
    EXPECT_EQ(bytes_of(dir / "made.npz"), bytes_of(dir / "plain.npz"));
    // Nothing written early: every member after the work.
    save_problem_while_made(dir / "late.npz", last,
                            [&](ProblemStream&) { return random_problem(spec); });
    EXPECT_EQ(bytes_of(dir / "late.npz"), bytes_of(dir / "plain.npz"));
  }
}

TEST(ProblemWhileMade, FailedWorkKeepsTheEarlierFile) {
  test::ScratchDir dir;
  const SampleSpec spec = spec_of("FusedBatchNormGradV3", DataFormat::NHWC, DType::F32);
  save_problem(dir / "p.npz",
               random_problem(spec_of("FusedBatchNormV3", DataFormat::NHWC, DType::F32)));
  const std::string before = bytes_of(dir / "p.npz");
  // Failing after the early members went out, and again with the gradient input half reported.
  for (const bool half : {false, true}) {
    EXPECT_THROW(save_problem_while_made(dir / "p.npz", "y_backprop",
                                         [&](ProblemStream& stream) -> Problem {
                                           SampleHooks hooks;
                                           hooks.before_gradient = [&](const Problem& p) {
                                             stream.started(p);
                                           };
                                           Problem p = random_problem(spec, hooks);
                                           const Tensor& y = p.inputs.at("y_backprop");
                                           if (half) stream.last_ready(y, y.nbytes() / 2);
                                           throw std::runtime_error("no space");
                                         }),
                 std::runtime_error);
    EXPECT_EQ(bytes_of(dir / "p.npz"), before);
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"p.npz"});
  }
}

}  // namespace
}  // namespace bnscope
