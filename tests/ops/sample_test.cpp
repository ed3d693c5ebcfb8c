// A generated problem is the same bytes whatever the number of threads that fill it, and its data
// is normal around the per-channel means and spreads it was drawn with.

#include "ops/sample.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "ops/catalog.h"

namespace bnscope {
namespace {

bool same_bytes(const Problem& a, const Problem& b) {
  if (a.inputs.size() != b.inputs.size()) return false;
  for (const auto& [name, t] : a.inputs) {
    const auto it = b.inputs.find(name);
    if (it == b.inputs.end() || it->second.shape() != t.shape() || it->second.dtype() != t.dtype())
      return false;
    // An empty tensor's storage may be null, which memcmp must not be given.
    if (t.nbytes() > 0 && std::memcmp(it->second.raw(), t.raw(), t.nbytes()) != 0) return false;
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

// The gradient input handed in slices is the whole tensor's bytes in order, from two buffers used
// in turn, whatever the slice size (smaller than a row, odd row counts, exactly two slices,
// larger than the tensor) and thread count; it is then not in the problem, and the other inputs
// are the same.
TEST(Sample, GradientSlicesAreTheWholeTensorInOrder) {
  for (DataFormat format : {DataFormat::NHWC, DataFormat::NCHW}) {
    for (DType dtype : {DType::F16, DType::BF16, DType::F32, DType::F64}) {
      for (const Shape& shape : {Shape{7, 5, 3, 9}, Shape{2, 0, 3, 4}, Shape{4, 3, 2, 6}}) {
        SampleSpec spec;
        spec.shape = shape;
        spec.format = format;
        spec.dtype = dtype;
        spec.seed = 3;
        Problem whole = random_problem(spec);
        const Tensor y = whole.inputs.at("y_backprop");
        whole.inputs.erase("y_backprop");
        const std::size_t two_slices = y.nbytes() / 2;
        for (std::size_t slice : {std::size_t{1}, std::size_t{100}, two_slices, y.nbytes() + 1}) {
          for (int threads : {1, 3}) {
            spec.slice_bytes = slice;
            spec.threads = threads;
            std::string bytes;
            std::vector<const void*> buffers;
            std::size_t calls = 0;
            SampleHooks hooks;
            hooks.gradient_slice = [&](const TensorSlice& s) {
              ++calls;
              EXPECT_EQ(s.dtype, dtype);
              EXPECT_EQ(s.shape, y.shape());
              EXPECT_EQ(s.offset, bytes.size());
              EXPECT_LE(s.bytes, s.buffer.nbytes());
              bytes.append(static_cast<const char*>(s.buffer.raw()), s.bytes);
              const void* at = s.buffer.raw();
              if (std::find(buffers.begin(), buffers.end(), at) == buffers.end())
                buffers.push_back(at);
            };
            const Problem p = random_problem(spec, hooks);
            const std::string trace = std::string(data_format_name(format)) + " " +
                                      std::string(dtype_name(dtype)) + " " + shape_str(shape) +
                                      ", slices of " + std::to_string(slice) + ", " +
                                      std::to_string(threads) + " threads";
            EXPECT_TRUE(same_bytes(p, whole)) << trace;
            ASSERT_EQ(bytes.size(), y.nbytes()) << trace;
            EXPECT_TRUE(y.nbytes() == 0 || std::memcmp(bytes.data(), y.raw(), y.nbytes()) == 0)
                << trace;
            EXPECT_GE(calls, 1u) << trace;
            EXPECT_LE(buffers.size(), 2u) << trace;
            if (slice == two_slices && shape == Shape{4, 3, 2, 6}) {  // 4 rows in NCHW, 24 in NHWC
              EXPECT_EQ(calls, 2u) << trace;
            }
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace bnscope
