// What backend cudnn says of its phases, from TensorFlow's rules for its cuDNN calls: the NHWC
// round trip where cuDNN does not take the data as it is (everything but 16-bit V3 data in
// persistent mode, and the inference forward, which takes NHWC), the Ex call for V3.

#include "cudnn_phases.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ops/prepared.h"
#include "ops/sample.h"

namespace bnscope::gpu {
namespace {

// reserve_bytes: a V3 grad's reserve_space_3 as a GPU forward leaves it (cuDNN's opaque reserve);
// 0: the scalar a CPU forward leaves.
Prepared problem(const char* op, DataFormat format, DType t, bool training = true,
                 std::int64_t reserve_floats = 0) {
  SampleSpec spec;
  spec.op = op;
  spec.shape = {2, 4, 4, 8};
  spec.format = format;
  spec.dtype = t;
  spec.is_training = training;
  Problem p = random_problem(spec);
  if (reserve_floats > 0) p.inputs["reserve_space_3"] = Tensor(DType::F32, {reserve_floats});
  return prepare(p);
}

std::vector<std::string> names(const std::vector<PhaseInfo>& plan) {
  std::vector<std::string> n;
  for (const PhaseInfo& p : plan) n.push_back(p.name);
  return n;
}

using Names = std::vector<std::string>;

TEST(CudnnPhases, AGradInNhwcGoesThroughNchwAndBack) {
  const Prepared p = problem("FusedBatchNormGradV3", DataFormat::NHWC, DType::F32, true, 16);
  EXPECT_EQ(names(cudnn_phases(p, false)),
            (Names{"upload", "kernel:transpose", "kernel:transpose",
                   "kernel:cudnnBatchNormalizationBackwardEx", "kernel:transpose", "download"}));
  // A scalar reserve_space_3 (a CPU forward's): the legacy call.
  EXPECT_EQ(
      names(cudnn_phases(problem("FusedBatchNormGradV3", DataFormat::NHWC, DType::F32), false))[3],
      "kernel:cudnnBatchNormalizationBackward");
  // NCHW as it is; V2 has no reserve_space_3, and so the legacy call.
  EXPECT_EQ(
      names(cudnn_phases(problem("FusedBatchNormGradV2", DataFormat::NCHW, DType::F32), false)),
      (Names{"upload", "kernel:cudnnBatchNormalizationBackward", "download"}));
}

TEST(CudnnPhases, SixteenBitV3InPersistentModeStaysNhwc) {
  const Prepared p = problem("FusedBatchNormGradV3", DataFormat::NHWC, DType::F16, true, 16);
  EXPECT_EQ(names(cudnn_phases(p, true)),
            (Names{"upload", "kernel:cudnnBatchNormalizationBackwardEx", "download"}));
  EXPECT_EQ(cudnn_phases(p, false).size(), 6u) << "without persistent mode it transposes";
}

TEST(CudnnPhases, ForwardsTransposeXOnlyAndInferenceNever) {
  EXPECT_EQ(names(cudnn_phases(problem("FusedBatchNormV3", DataFormat::NHWC, DType::F32), false)),
            (Names{"upload", "kernel:transpose", "kernel:cudnnBatchNormalizationForwardTrainingEx",
                   "kernel:transpose", "download"}));
  EXPECT_EQ(
      names(cudnn_phases(problem("FusedBatchNormV3", DataFormat::NHWC, DType::F32, false), false)),
      (Names{"upload", "kernel:cudnnBatchNormalizationForwardInference", "download"}));
}

TEST(CudnnPhases, EachSaysWhatItMovesAndWhy) {
  for (const PhaseInfo& info :
       cudnn_phases(problem("FusedBatchNormGradV3", DataFormat::NHWC, DType::F32), false)) {
    EXPECT_FALSE(info.description.empty()) << info.name;
    EXPECT_GT(info.x_tensors, 0) << info.name;
  }
}

}  // namespace
}  // namespace bnscope::gpu
