// count_non_finite reads exponent bits: it must agree with std::isfinite on every dtype,
// including the largest finite values, subnormals, signed zeros and NaN payloads.

#include "tensor/non_finite.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace bnscope {
namespace {

TEST(Health, CountsNanAndInfOnEveryDtype) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> values = {0.0,  -0.0, 1.0,  -2.5,         65504.0,       1e-7,
                                      5e-8, inf,  -inf, std::nan(""), -std::nan(""), 3.0};
  for (DType dt : kAllDTypes) {
    const Tensor t = Tensor::from_doubles(dt, {static_cast<std::int64_t>(values.size())}, values);
    std::int64_t want = 0;
    for (std::int64_t i = 0; i < t.numel(); ++i) want += !std::isfinite(t.get(i));
    EXPECT_EQ(want, 4) << dtype_name(dt);
    EXPECT_EQ(count_non_finite(t), want) << dtype_name(dt);
  }
}

TEST(Health, EveryHalfPatternAgreesWithTheConversion) {
  for (DType dt : {DType::F16, DType::BF16}) {
    Tensor t(dt, {65536});
    auto* bits = static_cast<std::uint16_t*>(t.raw());
    std::int64_t want = 0;
    for (std::uint32_t i = 0; i < 65536; ++i) {
      bits[i] = static_cast<std::uint16_t>(i);
      want += !std::isfinite(t.get(i));
    }
    EXPECT_EQ(count_non_finite(t), want) << dtype_name(dt);
  }
}

// Counts run in blocks in the element's width: a count past 2^16 must not wrap.
TEST(Health, LongRunsOfNanAreCountedInFull) {
  for (DType dt : kAllDTypes) {
    Tensor t(dt, {200003});
    for (std::int64_t i = 0; i < t.numel(); ++i) t.set(i, std::nan(""));
    EXPECT_EQ(count_non_finite(t), t.numel()) << dtype_name(dt);
    t.set(100000, 1.0);
    EXPECT_EQ(count_non_finite(t), t.numel() - 1) << dtype_name(dt);
  }
}

TEST(Health, LargestFiniteFloatsAreFinite) {
  Tensor f(DType::F32, {2});
  f.data<float>()[0] = std::numeric_limits<float>::max();
  f.data<float>()[1] = -std::numeric_limits<float>::max();
  EXPECT_EQ(count_non_finite(f), 0);
  Tensor d(DType::F64, {2});
  d.data<double>()[0] = std::numeric_limits<double>::max();
  d.data<double>()[1] = std::numeric_limits<double>::denorm_min();
  EXPECT_EQ(count_non_finite(d), 0);
}

// The count of a range (a reader's piece) by the baseline loop and by the vector clone: every
// 16-bit pattern, and float32/float64 runs with NaN and Inf at every offset in a vector's width.
TEST(Health, RangeCountsAgreeOnEveryClone) {
  for (DType dt : {DType::F16, DType::BF16}) {
    Tensor t(dt, {65536});
    auto* bits = static_cast<std::uint16_t*>(t.raw());
    for (std::uint32_t i = 0; i < 65536; ++i) bits[i] = static_cast<std::uint16_t>(i);
    for (std::int64_t from : {0, 1, 7, 31}) {
      std::int64_t want = 0;
      for (std::int64_t i = from; i < 65536 - 3; ++i) want += !std::isfinite(t.get(i));
      for (int isa : {0, 1, 2})
        EXPECT_EQ(count_non_finite(dt, bits + from, 65536 - from - 3, isa), want)
            << dtype_name(dt) << " from " << from << " clone " << isa;
    }
  }
  for (DType dt : {DType::F32, DType::F64}) {
    Tensor t(dt, {1000});
    for (std::int64_t i = 0; i < t.numel(); i += 3) t.set(i, i % 2 ? std::nan("") : -INFINITY);
    const std::int64_t want = count_non_finite(t);
    const std::size_t size = dtype_size(dt);
    for (int isa : {0, 1, 2})
      for (std::int64_t from = 0; from < 17; ++from) {
        std::int64_t head = 0;
        for (std::int64_t i = 0; i < from; ++i) head += !std::isfinite(t.get(i));
        EXPECT_EQ(count_non_finite(dt, static_cast<const std::byte*>(t.raw()) + from * size,
                                   t.numel() - from, isa),
                  want - head)
            << dtype_name(dt) << " from " << from << " clone " << isa;
      }
  }
}

// The largest magnitude without NaN, against a plain loop over the values, on every dtype: Inf,
// NaN of both signs, negative values, subnormals and signed zeros, in a tensor large enough to be
// read in parts.
TEST(Health, LargestMagnitudeSkipsNanAndKeepsInf) {
  const std::int64_t n = (std::int64_t{3} << 20) + 5;
  std::mt19937 rng(23);
  std::normal_distribution<double> normal;
  std::vector<double> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i)
    v[i] = normal(rng) * std::ldexp(1.0, static_cast<int>(i % 30) - 20);
  v[n - 1] = -9000.5;  // the largest (the others stay below 2^13), negative, the last element
  v[17] = std::nan("");
  v[18] = -std::nan("");
  v[19] = -0.0;
  v[20] = 1e-40;
  for (DType t : kAllDTypes) {
    SCOPED_TRACE(std::string(dtype_name(t)));
    Tensor x = Tensor::from_doubles(t, {n}, v);
    const auto plain = [&] {
      double m = 0;
      for (std::int64_t i = 0; i < n; ++i) {
        const double a = std::fabs(x.get(i));
        if (a > m) m = a;
      }
      return m;
    };
    const double want = plain();
    EXPECT_EQ(max_magnitude(x), want);
    for (int isa : {0, 2})  // the baseline build's loop and the widest clone, on one thread
      EXPECT_EQ(max_magnitude(t, x.raw(), n, isa), want) << "clone " << isa;
    x.set(1000, -std::numeric_limits<double>::infinity());
    EXPECT_EQ(max_magnitude(x), std::numeric_limits<double>::infinity());
    const std::vector<double> nan_values = {std::nan(""), -std::nan(""), std::nan("")};
    Tensor nans = Tensor::from_doubles(t, {3}, nan_values);
    EXPECT_EQ(max_magnitude(nans), 0.0);
    EXPECT_EQ(max_magnitude(Tensor(t, {0})), 0.0);
  }
}

}  // namespace
}  // namespace bnscope
