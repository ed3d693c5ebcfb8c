// The error histogram bins by comparisons against decade edges found once; every error must land
// where 1 + clamp(floor(log10(e)) - low + 1, 0, decades) puts it, the definition, including the
// doubles right at and beside every edge.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "analysis/diff.h"

namespace bnscope {
namespace {

int by_definition(double e) {
  if (e == 0) return 0;
  const int decades = kHistogramDecadeHigh - kHistogramDecadeLow;
  if (!(e < std::numeric_limits<double>::infinity())) return decades + 1;
  const int d = static_cast<int>(std::floor(std::log10(e)));
  return 1 + std::clamp(d - kHistogramDecadeLow + 1, 0, decades);
}

TEST(DiffHistogram, EveryErrorLandsInItsDecade) {
  std::vector<double> errors = {0.0,   std::numeric_limits<double>::denorm_min(), 1e-300, 0.3, 7.5,
                                1e300, std::numeric_limits<double>::infinity()};
  for (int d = kHistogramDecadeLow - 3; d <= kHistogramDecadeHigh + 3; ++d) {
    const double p = std::pow(10.0, d);
    double x = p;
    for (int k = 0; k < 4; ++k) x = std::nextafter(x, 0.0);
    for (int k = 0; k < 9; ++k, x = std::nextafter(x, 1e308)) errors.push_back(x);
    errors.push_back(p * 3.3);
  }
  OutputTensor ref{"x", Tensor(DType::F64, {static_cast<std::int64_t>(errors.size())})};
  OutputTensor cand{
      "x", Tensor::from_doubles(DType::F64, {static_cast<std::int64_t>(errors.size())}, errors)};
  DiffOptions options;
  const OutputDiff d = compare_output(ref, cand, options, nullptr);
  std::vector<std::int64_t> want(static_cast<std::size_t>(histogram_bin_count()), 0);
  for (double e : errors) ++want[static_cast<std::size_t>(by_definition(e))];
  EXPECT_EQ(d.histogram, want);
  // One element at a time, so a miss names its value.
  for (double e : errors) {
    OutputTensor r1{"x", Tensor(DType::F64, {1})};
    OutputTensor c1{"x", Tensor::from_doubles(DType::F64, {1}, std::vector<double>{e})};
    const OutputDiff one = compare_output(r1, c1, options, nullptr);
    std::vector<std::int64_t> bin(want.size(), 0);
    ++bin[static_cast<std::size_t>(by_definition(e))];
    EXPECT_EQ(one.histogram, bin) << "error " << e;
  }
}

}  // namespace
}  // namespace bnscope
