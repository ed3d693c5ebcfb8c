// A generated problem is the same bytes whatever the number of threads that fill it, and its data
// is normal around the per-channel means and spreads it was drawn with.

#include "ops/sample.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "ops/catalog.h"

namespace bnscope {
namespace {

bool same_bytes(const Problem& a, const Problem& b) {
  if (a.inputs.size() != b.inputs.size()) return false;
  for (const auto& [name, t] : a.inputs) {
    const auto it = b.inputs.find(name);
    if (it == b.inputs.end() || it->second.shape() != t.shape() ||
        it->second.dtype() != t.dtype() || std::memcmp(it->second.raw(), t.raw(), t.nbytes()) != 0)
      return false;
  }
  return true;
}

TEST(Sample, SameBytesOnAnyThreadCount) {
  for (DataFormat format : {DataFormat::NHWC, DataFormat::NCHW}) {
    for (DType dtype : {DType::F32, DType::F64, DType::F16}) {
      SampleSpec spec;
      spec.shape = {7, 5, 3, 9};  // odd rows: pairs of draws straddle the threads' rows
      spec.format = format;
      spec.dtype = dtype;
      spec.seed = 11;
      spec.threads = 1;
      const Problem one = random_problem(spec);
      for (int threads : {2, 3, 0}) {
        spec.threads = threads;
        EXPECT_TRUE(same_bytes(one, random_problem(spec)))
            << threads << " threads, " << data_format_name(format) << ", " << dtype_name(dtype);
      }
      spec.seed = 12;
      EXPECT_FALSE(same_bytes(one, random_problem(spec))) << "another seed, another problem";
    }
  }
}

TEST(Sample, DataIsNormalPerChannel) {
  SampleSpec spec;
  spec.shape = {64, 16, 16, 4};
  spec.dtype = DType::F64;
  spec.threads = 3;
  const Problem p = random_problem(spec);
  const Tensor& x = p.inputs.at("x");
  const double* v = x.data<double>();
  const std::int64_t c = 4, per = x.numel() / c;
  for (std::int64_t k = 0; k < c; ++k) {
    double m = 0, m2 = 0, m4 = 0;
    for (std::int64_t j = 0; j < per; ++j) m += v[j * c + k];
    m /= static_cast<double>(per);
    for (std::int64_t j = 0; j < per; ++j) {
      const double d = v[j * c + k] - m;
      m2 += d * d;
      m4 += d * d * d * d;
    }
    m2 /= static_cast<double>(per);
    m4 /= static_cast<double>(per);
    // Means within +-2, spreads 0.5..1.5 (sample.cpp); kurtosis 3 for a normal.
    EXPECT_LE(std::fabs(m), 2.0) << k;
    EXPECT_GE(std::sqrt(m2), 0.45) << k;
    EXPECT_LE(std::sqrt(m2), 1.55) << k;
    EXPECT_NEAR(m4 / (m2 * m2), 3.0, 0.2) << k;
    // The reserve spaces are x's batch statistics, as the forward op saves them.
    EXPECT_NEAR(p.inputs.at("reserve_space_1").get(k), m, 1e-5) << k;
    EXPECT_NEAR(p.inputs.at("reserve_space_2").get(k), m2, 1e-5 * m2) << k;
  }
}

}  // namespace
}  // namespace bnscope
