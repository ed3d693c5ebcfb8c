// Tensor::to converts whole buffers in vectorized parts (tensor/convert_elements.h): every element
// must come out as Tensor::set(i, get(i)) writes it through dtype.h's one-element conversions,
// NaN patterns included, on any split of the buffer.

#include "tensor/convert_elements.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "rounding_values.h"
#include "tensor/tensor.h"

namespace bnscope {
namespace {

// The stored bytes of element i.
std::vector<unsigned char> bytes_of(const Tensor& t, std::int64_t i) {
  const std::size_t w = dtype_size(t.dtype());
  const auto* p = static_cast<const unsigned char*>(t.raw()) + static_cast<std::size_t>(i) * w;
  return {p, p + w};
}

// src converted to every other dtype by Tensor::to (the AVX2 loop where the CPU has it) and by the
// baseline build's loop, against the element-by-element path (to its own dtype Tensor::to hands
// back the same buffer).
void expect_elementwise(const Tensor& src) {
  for (DType to : kAllDTypes) {
    if (to == src.dtype()) continue;
    Tensor want(to, src.shape());
    for (std::int64_t i = 0; i < src.numel(); ++i) want.set(i, src.get(i));
    Tensor baseline(to, src.shape());
    convert_elements(src.raw(), src.dtype(), baseline.raw(), to, src.numel(), 0);
    const Tensor got = src.to(to);
    ASSERT_EQ(got.dtype(), to);
    ASSERT_EQ(got.shape(), src.shape());
    for (const Tensor* t : {&got, static_cast<const Tensor*>(&baseline)}) {
      SCOPED_TRACE(std::string(dtype_name(src.dtype())) + " to " + std::string(dtype_name(to)) +
                   (t == &got ? "" : ", baseline loop"));
      int reported = 0;
      for (std::int64_t i = 0; i < src.numel() && reported < 10; ++i)
        if (bytes_of(*t, i) != bytes_of(want, i)) {
          ADD_FAILURE() << "element " << i << " (" << src.get(i) << ") converts to " << t->get(i)
                        << ", element by element " << want.get(i);
          ++reported;
        }
    }
  }
}

TEST(ConvertElements, EverySixteenBitPatternConvertsAsOneElementDoes) {
  for (DType from : {DType::F16, DType::BF16}) {
    Tensor t(from, {65536});
    auto* p = static_cast<std::uint16_t*>(t.raw());
    for (std::uint32_t h = 0; h < 65536; ++h) p[h] = static_cast<std::uint16_t>(h);
    expect_elementwise(t);
  }
}

TEST(ConvertElements, FloatsRoundAsOneElementDoes) {
  std::vector<float> values = rounding_values(300000, 11);
  for (std::uint32_t h = 0; h < 65536; ++h) {  // either side of halfway between bfloat16s
    values.push_back(bits_to_f32((h << 16) | 0x8000u));
    values.push_back(bits_to_f32((h << 16) | 0x7fffu));
  }
  Tensor t(DType::F32, {static_cast<std::int64_t>(values.size())});
  std::memcpy(t.raw(), values.data(), values.size() * sizeof(float));
  expect_elementwise(t);
}

TEST(ConvertElements, DoublesRoundThroughFloatAsOneElementDoes) {
  std::vector<double> values = {0.0,
                                -0.0,
                                1.0 + 0x1p-30,
                                65504.0,
                                65520.0 - 0x1p-40,
                                1e300,
                                -1e300,
                                1e-310,
                                std::numeric_limits<double>::infinity(),
                                std::numeric_limits<double>::quiet_NaN()};
  std::mt19937_64 rng(13);
  std::uniform_int_distribution<std::uint64_t> bits;
  for (int i = 0; i < 200000; ++i) {
    const std::uint64_t u = bits(rng);
    double d;
    std::memcpy(&d, &u, sizeof d);
    values.push_back(d);
    values.push_back(std::ldexp(static_cast<double>(u >> 11) * 0x1p-53, -30 + i % 60));
  }
  Tensor t(DType::F64, {static_cast<std::int64_t>(values.size())});
  std::memcpy(t.raw(), values.data(), values.size() * sizeof(double));
  expect_elementwise(t);
}

// Large enough to be split across the pool's threads: every part starts where the one before
// ended.
TEST(ConvertElements, ALargeBufferConvertsInPartsAsOneElementDoes) {
  const std::int64_t n = (std::int64_t{5} << 20) + 77;
  Tensor t(DType::F32, {n});
  auto* p = static_cast<float*>(t.raw());
  std::mt19937 rng(17);
  std::normal_distribution<float> normal;
  for (std::int64_t i = 0; i < n; ++i)
    p[i] = normal(rng) * std::ldexp(1.0f, static_cast<int>(i % 40) - 20);
  const Tensor half = t.to(DType::F16);
  const auto* h = static_cast<const std::uint16_t*>(half.raw());
  std::int64_t wrong = 0;
  for (std::int64_t i = 0; i < n; ++i) wrong += h[i] != float_to_half_bits(p[i]) ? 1 : 0;
  EXPECT_EQ(wrong, 0);
  const Tensor back = half.to(DType::F32);
  const auto* b = static_cast<const float*>(back.raw());
  wrong = 0;
  for (std::int64_t i = 0; i < n; ++i)
    wrong += f32_to_bits(b[i]) != f32_to_bits(half_bits_to_float(h[i])) ? 1 : 0;
  EXPECT_EQ(wrong, 0);
}

}  // namespace
}  // namespace bnscope
