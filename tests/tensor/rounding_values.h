#pragma once
// Floats where a rounding to float16 or bfloat16 can go wrong: zeros, the largest half and the
// first float past it, what rounds to the smallest subnormal half or below it, infinities, NaN,
// the point halfway between every two adjacent finite halves, and `random` patterns.

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "tensor/dtype.h"

namespace bnscope {

inline std::vector<float> rounding_values(int random, unsigned seed) {
  std::vector<float> values = {0.0f,
                               -0.0f,
                               1.0f,
                               65504.0f,
                               65519.99f,
                               65520.0f,
                               1e6f,
                               -1e6f,
                               6e-8f,
                               3e-8f,
                               2.9e-8f,
                               1e-45f,
                               3.4e38f,
                               std::numeric_limits<float>::infinity(),
                               -std::numeric_limits<float>::infinity(),
                               std::numeric_limits<float>::quiet_NaN(),
                               -std::numeric_limits<float>::quiet_NaN(),
                               std::numeric_limits<float>::signaling_NaN()};
  for (std::uint32_t h = 0; h < 65536; ++h) {
    const float a = half_bits_to_float(static_cast<std::uint16_t>(h));
    const float b = half_bits_to_float(static_cast<std::uint16_t>(h + 1));
    if (std::isfinite(a) && std::isfinite(b)) values.push_back((a + b) / 2);
  }
  std::mt19937 rng(seed);
  std::uniform_int_distribution<std::uint32_t> bits;
  for (int i = 0; i < random; ++i) values.push_back(bits_to_f32(bits(rng)));
  return values;
}

}  // namespace bnscope
