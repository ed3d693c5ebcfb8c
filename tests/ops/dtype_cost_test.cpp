// The memory a run holds at each dtype, counted from the inputs' element counts and the op's
// types: the data-shaped tensors take T, the per-channel statistics stay float32.

#include "ops/dtype_cost.h"

#include <gtest/gtest.h>

#include "ops/sample.h"

namespace bnscope::test {

TEST(DtypeCost, DataTensorsTakeTAndTheStatisticsStayFloat) {
  SampleSpec spec;
  spec.shape = {2, 3, 4, 8};  // NHWC: 192 elements, 8 channels
  const Problem p = random_problem(spec);
  ASSERT_EQ(p.op, "FusedBatchNormGradV3");
  const std::uint64_t elements = 2 * 3 * 4 * 8;
  // y_backprop and x in T, plus the data-shaped output and its converted copy; scale and the
  // three reserve spaces in float32 (reserve_space_3 is empty).
  const std::uint64_t channel_bytes = (8 + 8 + 8) * 4 + p.inputs.at("reserve_space_3").nbytes();
  for (auto [t, size] : {std::pair{DType::F16, 2u}, {DType::F32, 4u}, {DType::F64, 8u}})
    EXPECT_EQ(run_bytes_at(p, t), 2 * elements * size + channel_bytes + 2 * elements * size)
        << dtype_name(t);
  Problem unknown = p;
  unknown.op = "NoSuchOp";
  EXPECT_EQ(run_bytes_at(unknown, DType::F32), 0u);
}

}  // namespace bnscope::test
