// The cpu backend's branch-free conversions match tensor/dtype.h bit for bit.

#include "backends/cpu/convert.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

namespace bnscope::cpu {
namespace {

TEST(CpuConvert, EveryHalfLoadsAsTheReferenceConversion) {
  for (std::uint32_t h = 0; h < 65536; ++h) {
    const float want = half_bits_to_float(static_cast<std::uint16_t>(h));
    const float got = load(f16{static_cast<std::uint16_t>(h)});
    if (std::isnan(want))
      EXPECT_TRUE(std::isnan(got)) << h;
    else
      EXPECT_EQ(f32_to_bits(got), f32_to_bits(want)) << h;
  }
}

TEST(CpuConvert, StoresRoundLikeTheReferenceConversion) {
  std::vector<float> values = {0.0f,
                               -0.0f,
                               1.0f,
                               65504.0f,
                               65520.0f,
                               1e6f,
                               -1e6f,
                               6e-8f,
                               3e-8f,
                               2.9e-8f,
                               1e-45f,
                               std::numeric_limits<float>::infinity(),
                               -std::numeric_limits<float>::infinity(),
                               std::numeric_limits<float>::quiet_NaN()};
  std::mt19937 rng(7);
  std::uniform_int_distribution<std::uint32_t> bits;
  for (int i = 0; i < 200000; ++i) values.push_back(bits_to_f32(bits(rng)));
  for (std::uint32_t h = 0; h < 65536; ++h) {  // halfway cases between adjacent halves
    const float a = half_bits_to_float(static_cast<std::uint16_t>(h));
    const float b = half_bits_to_float(static_cast<std::uint16_t>(h + 1));
    if (std::isfinite(a) && std::isfinite(b)) values.push_back((a + b) / 2);
  }
  for (float f : values) {
    EXPECT_EQ(store<f16>(f).bits, float_to_half_bits(f)) << f << " bits " << f32_to_bits(f);
    EXPECT_EQ(store<bf16>(f).bits, float_to_bf16_bits(f)) << f << " bits " << f32_to_bits(f);
  }
}

}  // namespace
}  // namespace bnscope::cpu
