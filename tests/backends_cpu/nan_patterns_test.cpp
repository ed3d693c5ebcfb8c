// The bits of NaN in a training grad's 16-bit dx. The write sweeps leave out their NaN test
// where no coefficient is NaN (kernels.h: Affine::nan_free), which is sound only because a NaN in
// x or dy makes its channel's coefficients NaN. These runs would catch a channel that skipped
// the test anyway: a float16 NaN input's payload would survive the plain conversion (convert.h
// stores every NaN as 0x7E00 with its sign), and a scale NaN whose low half passes 0x8000 would
// round into the next bfloat16 pattern instead of keeping its high half.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

#include "engine/engine.h"
#include "problem_maker.h"

namespace bnscope::testing {
namespace {

// Rows (NHWC, two passes), planes (NCHW 40x40 on one thread), channel blocks (NCHW 7x7 on one
// thread) and the two-pass walk of the same NCHW problems on two threads.
const Shape kShapes[] = {{2, 9, 7, 48}, {2, 40, 40, 3}, {64, 7, 7, 4}};

Result run_on(const Problem& pb, int threads) {
  RunContext ctx;
  ctx.threads = threads;
  return run_problem(pb, "cpu", ctx);
}

const std::uint16_t* dx_bits(const Result& r) {
  return static_cast<const std::uint16_t*>(r.outputs[0].tensor.raw());
}

TEST(CpuNanPatterns, HalfNanInputsGiveTheCanonicalNanInTrainingDx) {
  int nans = 0;
  for (const Shape& shape : kShapes)
    for (const char* format : {"NHWC", "NCHW"})
      for (int threads : {1, 2}) {
        Variant v =
            sweep_variant(find_op("FusedBatchNormGradV3"), format, true, DType::F16, shape, 41);
        Problem pb = make_problem(v);
        // A signalling NaN with a payload in x, a negative quiet one with a payload in dy.
        const std::uint16_t x_nan = 0x7D55, dy_nan = 0xFE3F;
        std::memcpy(static_cast<std::uint16_t*>(pb.inputs.at("x").raw()) + 5, &x_nan, 2);
        std::memcpy(static_cast<std::uint16_t*>(pb.inputs.at("y_backprop").raw()) + 17, &dy_nan, 2);
        const Result r = run_on(pb, threads);
        const std::uint16_t* dx = dx_bits(r);
        for (std::int64_t i = 0; i < r.outputs[0].tensor.numel(); ++i) {
          const std::uint16_t b = dx[i];
          if ((b & 0x7C00) != 0x7C00 || (b & 0x03FF) == 0) continue;  // not a NaN
          ++nans;
          ASSERT_EQ(b & 0x7FFF, 0x7E00)
              << describe(v) << " threads " << threads << " dx[" << i << "] = 0x" << std::hex << b;
        }
      }
  EXPECT_GT(nans, 0) << "the NaN inputs made no NaN in dx";
}

TEST(CpuNanPatterns, BfloatScaleNanKeepsItsHighHalfInTrainingDx) {
  int nans = 0;
  for (const Shape& shape : kShapes)
    for (const char* format : {"NHWC", "NCHW"})
      for (int threads : {1, 2}) {
        Variant v =
            sweep_variant(find_op("FusedBatchNormGradV3"), format, true, DType::BF16, shape, 43);
        Problem pb = make_problem(v);
        // Scale is float32: a quiet NaN whose low half would carry into bit 16 when rounded.
        const std::uint32_t scale_nan = 0x7FC0FFFFu;
        std::memcpy(static_cast<std::uint32_t*>(pb.inputs.at("scale").raw()) + 1, &scale_nan, 4);
        const Result r = run_on(pb, threads);
        const std::uint16_t* dx = dx_bits(r);
        for (std::int64_t i = 0; i < r.outputs[0].tensor.numel(); ++i) {
          const std::uint16_t b = dx[i];
          if ((b & 0x7F80) != 0x7F80 || (b & 0x007F) == 0) continue;  // not a NaN
          ++nans;
          ASSERT_EQ(b & 0x7FFF, 0x7FC0)
              << describe(v) << " threads " << threads << " dx[" << i << "] = 0x" << std::hex << b;
        }
      }
  EXPECT_GT(nans, 0) << "the NaN scale made no NaN in dx";
}

}  // namespace
}  // namespace bnscope::testing
