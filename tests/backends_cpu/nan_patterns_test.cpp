// The bits of NaN in a training grad's 16-bit dx. The write sweeps leave out their NaN test
// where no coefficient is NaN (kernels.h: Affine::nan_free), which is sound only because a NaN in
// x or dy makes its channel's coefficients NaN. These runs would catch a channel that skipped
// the test anyway: a float16 NaN input's payload would survive the plain conversion (convert.h
// stores every NaN as 0x7E00 with its sign), and a scale NaN whose low half passes 0x8000 would
// round into the next bfloat16 pattern instead of keeping its high half.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "engine/engine.h"
#include "problem_maker.h"

namespace bnscope::testing {
namespace {

// Rows (NHWC, two passes), planes (NCHW 40x40 on one thread), channel blocks (NCHW 7x7 on one
// thread) and the two-pass walk of the same NCHW problems on two threads.
const Shape kShapes[] = {{2, 9, 7, 48}, {2, 40, 40, 3}, {64, 7, 7, 4}};

// Runs FusedBatchNormGradV3 in training mode for every shape, layout and thread count, with
// `poison` applied to the problem's inputs, and returns the NaN patterns of dx (is_nan decides
// which 16-bit patterns are NaN), each with where it came from.
template <class Poison, class IsNan>
std::vector<std::pair<std::uint16_t, std::string>> training_dx_nans(DType dtype, Poison poison,
                                                                    IsNan is_nan) {
  std::vector<std::pair<std::uint16_t, std::string>> nans;
  for (const Shape& shape : kShapes)
    for (const char* format : {"NHWC", "NCHW"})
      for (int threads : {1, 2}) {
        const Variant v =
            sweep_variant(find_op("FusedBatchNormGradV3"), format, true, dtype, shape, 41);
        Problem pb = make_problem(v);
        poison(pb);
        RunContext ctx;
        ctx.threads = threads;
        const Result r = run_problem(pb, "cpu", ctx);
        const auto* dx = static_cast<const std::uint16_t*>(r.outputs[0].tensor.raw());
        for (std::int64_t i = 0; i < r.outputs[0].tensor.numel(); ++i)
          if (is_nan(dx[i]))
            nans.emplace_back(dx[i], describe(v) + " threads " + std::to_string(threads) + " dx[" +
                                         std::to_string(i) + "]");
      }
  return nans;
}

template <class T>
void set_bits(Tensor& t, std::int64_t i, T bits) {
  std::memcpy(static_cast<T*>(t.raw()) + i, &bits, sizeof bits);
}

TEST(CpuNanPatterns, HalfNanInputsGiveTheCanonicalNanInTrainingDx) {
  const auto nans = training_dx_nans(
      DType::F16,
      [](Problem& pb) {
        // A signalling NaN with a payload in x, a negative quiet one with a payload in dy.
        set_bits<std::uint16_t>(pb.inputs.at("x"), 5, 0x7D55);
        set_bits<std::uint16_t>(pb.inputs.at("y_backprop"), 17, 0xFE3F);
      },
      [](std::uint16_t b) { return (b & 0x7C00) == 0x7C00 && (b & 0x03FF) != 0; });
  EXPECT_FALSE(nans.empty()) << "the NaN inputs made no NaN in dx";
  for (const auto& [bits, where] : nans)
    ASSERT_EQ(bits & 0x7FFF, 0x7E00) << where << " = 0x" << std::hex << bits;
}

TEST(CpuNanPatterns, BfloatScaleNanKeepsItsHighHalfInTrainingDx) {
  const auto nans = training_dx_nans(
      DType::BF16,
      [](Problem& pb) {
        // Scale is float32: a quiet NaN whose low half would carry into bit 16 when rounded.
        set_bits<std::uint32_t>(pb.inputs.at("scale"), 1, 0x7FC0FFFFu);
      },
      [](std::uint16_t b) { return (b & 0x7F80) == 0x7F80 && (b & 0x007F) != 0; });
  EXPECT_FALSE(nans.empty()) << "the NaN scale made no NaN in dx";
  for (const auto& [bits, where] : nans)
    ASSERT_EQ(bits & 0x7FFF, 0x7FC0) << where << " = 0x" << std::hex << bits;
}

}  // namespace
}  // namespace bnscope::testing
