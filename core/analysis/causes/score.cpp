// How far a trial's outputs are from the reference (analysis/causes/search.h): on one scope, and
// on every channel a block at a time, where the parts that add up over blocks are summed.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>

#include "analysis/causes/search.h"
#include "analysis/diff.h"
#include "tensor/convert_elements.h"

namespace bnscope::causes {

namespace {

// The squared differences of a and b and the squares of b, over the elements where the difference
// is finite, each summed as mean_abs is (diff.h): element i into partial i % kMeanLanes, the
// partials added pairwise. A fixed order, the same on every run, that the compiler vectorizes.
[[gnu::always_inline]] inline double masked(double v, std::uint64_t mask) {
  std::uint64_t u;
  std::memcpy(&u, &v, sizeof u);
  u &= mask;
  std::memcpy(&v, &u, sizeof v);
  return v;
}

template <class T>
[[gnu::always_inline]] inline void sq_partials(const T* x, const T* y, std::int64_t n,
                                               double (&err)[kMeanLanes],
                                               double (&ref)[kMeanLanes]) {
  const std::int64_t whole = n / kMeanLanes * kMeanLanes;
  for (std::int64_t i = 0; i < whole; i += kMeanLanes)
    for (int k = 0; k < kMeanLanes; ++k) {
      const double yi = static_cast<double>(y[i + k]);
      const double d = static_cast<double>(x[i + k]) - yi;
      // Finite exactly when the difference's exponent is not all ones; the others add +0 through
      // a mask of bits (a select of doubles would not vectorize, a product would make NaN).
      std::uint64_t bits;
      std::memcpy(&bits, &d, sizeof bits);
      const std::uint64_t keep =
          (bits & 0x7ff0000000000000ull) != 0x7ff0000000000000ull ? ~std::uint64_t{0} : 0;
      err[k] += masked(d * d, keep);
      ref[k] += masked(yi * yi, keep);
    }
  for (std::int64_t i = whole; i < n; ++i) {
    const double yi = static_cast<double>(y[i]);
    const double d = static_cast<double>(x[i]) - yi;
    if (std::isfinite(d)) err[i - whole] += d * d, ref[i - whole] += yi * yi;
  }
}

double sq_error(const Tensor& a, const Tensor& b, double& ref_sq) {
  double err[kMeanLanes] = {}, ref[kMeanLanes] = {};
  // Blocks start at multiples of kMeanLanes: element i still goes to partial i % kMeanLanes.
  constexpr std::int64_t kBlock = 1024;
  if (a.dtype() != DType::F64 && b.dtype() != DType::F64) {
    // float32 read in place, float16 and bfloat16 (a half-precision run against float32 outputs)
    // widened to float a block at a time: the values get() gives.
    float x[kBlock], y[kBlock];
    for (std::int64_t begin = 0; begin < a.numel(); begin += kBlock) {
      const std::int64_t n = std::min(kBlock, a.numel() - begin);
      sq_partials(floats_of(a, begin, n, x), floats_of(b, begin, n, y), n, err, ref);
    }
  } else {
    // float64 on either side through doubles.
    double x[kBlock], y[kBlock];
    for (std::int64_t begin = 0; begin < a.numel(); begin += kBlock) {
      const std::int64_t n = std::min(kBlock, a.numel() - begin);
      for (std::int64_t i = 0; i < n; ++i) x[i] = a.get(begin + i), y[i] = b.get(begin + i);
      sq_partials(x, y, n, err, ref);
    }
  }
  ref_sq += pairwise_sum(ref);
  return pairwise_sum(err);
}

// A score's parts that add up over blocks of channels: the squared error and the reference's
// squared size per expected output, besides the worst figures.
struct ScoreSums {
  Score score;
  std::vector<std::pair<double, double>> sq;  // per expected output: (error, reference)
};

ScoreSums score_sums(const std::vector<OutputTensor>& outs, const Scope& s,
                     const DiffOptions& options) {
  ScoreSums r;
  Score& sc = r.score;
  const Comparison c = compare_results("expected", s.expected, "trial", outs, options);
  sc.ran = true;
  sc.passed = c.passed;
  sc.ratio = c.worst_tolerance_ratio();
  sc.max_abs = 0;
  for (const OutputDiff& o : c.outputs)
    if (o.compared) sc.max_abs = std::max(sc.max_abs, o.nan_mismatches ? INFINITY : o.max_abs);
  r.sq.assign(s.expected.size(), {0.0, 0.0});
  for (std::size_t i = 0; i < s.expected.size(); ++i) {
    const OutputTensor& e = s.expected[i];
    if (!e.defined) continue;
    for (const OutputTensor& o : outs)
      if (o.name == e.name && o.defined && o.tensor.numel() == e.tensor.numel())
        r.sq[i].first += sq_error(o.tensor, e.tensor, r.sq[i].second);
  }
  return r;
}

double summed_sq(const std::vector<std::pair<double, double>>& sq) {
  double total = 0;
  for (const auto& [err, ref] : sq) total += err / (ref + 1e-300);
  return total;
}

}  // namespace

Score Search::score_outputs(const std::vector<OutputTensor>& outs, const Scope& s) const {
  ScoreSums r = score_sums(outs, s, options_);
  r.score.sq = summed_sq(r.sq);
  return r.score;
}

Score Search::score_in_blocks(const Trial& t, std::int64_t per_block) const {
  const std::int64_t c = whole_.view.channels;
  per_block = std::max<std::int64_t>(per_block, 1);
  Score total;
  total.ran = true;
  total.passed = true;
  total.ratio = 0;
  total.max_abs = 0;
  std::vector<std::pair<double, double>> sq(whole_.expected.size(), {0.0, 0.0});
  for (std::int64_t first = 0; first < c; first += per_block) {
    std::vector<std::int64_t> block(static_cast<std::size_t>(std::min(per_block, c - first)));
    std::iota(block.begin(), block.end(), first);
    // The candidate's outputs only for a trial that maps them instead of re-running.
    const Scope b = on_channels(block, static_cast<bool>(t.instead_of_run));
    const auto outs = outputs(t, b);  // checks for a cancel first
    if (!outs) return Score{};
    const ScoreSums r = score_sums(*outs, b, options_);
    total.passed = total.passed && r.score.passed;
    total.ratio = std::max(total.ratio, r.score.ratio);
    total.max_abs = std::max(total.max_abs, r.score.max_abs);
    for (std::size_t i = 0; i < sq.size() && i < r.sq.size(); ++i) {
      sq[i].first += r.sq[i].first;
      sq[i].second += r.sq[i].second;
    }
  }
  total.sq = summed_sq(sq);
  return total;
}

Score Search::score_on_all_channels(const Trial& t) const {
  const auto x = whole_.problem.inputs.find(std::string(op_.data_input()));
  const std::size_t bytes = x == whole_.problem.inputs.end() ? 0 : x->second.nbytes();
  const std::int64_t c = whole_.view.channels;
  if (t.whole_only || bytes <= kWholeBytes || c < 2) return score(t, whole_);
  const auto per_block = static_cast<std::int64_t>(
      std::max<std::size_t>(1, static_cast<std::size_t>(c) * kBlockBytes / bytes));
  return score_in_blocks(t, per_block);
}

Score Search::score(const Trial& t, const Scope& s) const {
  const auto outs = outputs(t, s);
  if (!outs) return Score{};
  return score_outputs(*outs, s);
}

}  // namespace bnscope::causes
