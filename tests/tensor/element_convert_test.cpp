// The branch-free element conversions (the cpu backend's loops, Tensor::to) match tensor/dtype.h
// bit for bit.

#include "tensor/element_convert.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "rounding_values.h"

namespace bnscope::element {
namespace {

TEST(ElementConvert, EveryHalfLoadsAsTheReferenceConversion) {
  for (std::uint32_t h = 0; h < 65536; ++h) {
    const float want = half_bits_to_float(static_cast<std::uint16_t>(h));
    const float got = load(f16{static_cast<std::uint16_t>(h)});
    if (std::isnan(want))
      EXPECT_TRUE(std::isnan(got)) << h;
    else
      EXPECT_EQ(f32_to_bits(got), f32_to_bits(want)) << h;
  }
}

TEST(ElementConvert, StoresRoundLikeTheReferenceConversion) {
  for (float f : rounding_values(200000, 7)) {
    EXPECT_EQ(store<f16>(f).bits, float_to_half_bits(f)) << f << " bits " << f32_to_bits(f);
    EXPECT_EQ(store<bf16>(f).bits, float_to_bf16_bits(f)) << f << " bits " << f32_to_bits(f);
  }
}

}  // namespace
}  // namespace bnscope::element
