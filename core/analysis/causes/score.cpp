// How far a trial's outputs are from the reference (analysis/causes/search.h): on one scope, and
// on every channel a block at a time, where the parts that add up over blocks are summed.

#include <algorithm>
#include <cmath>
#include <numeric>

#include "analysis/causes/search.h"

namespace bnscope::causes {

namespace {

double sq_error(const Tensor& a, const Tensor& b, double& ref_sq) {
  double s = 0;
  if (a.dtype() == DType::F32 && b.dtype() == DType::F32) {
    const float* x = a.data<float>();
    const float* y = b.data<float>();
    for (std::int64_t i = 0; i < a.numel(); ++i) {
      const double d = static_cast<double>(x[i]) - y[i];
      if (std::isfinite(d)) s += d * d, ref_sq += static_cast<double>(y[i]) * y[i];
    }
    return s;
  }
  for (std::int64_t i = 0; i < a.numel(); ++i) {
    const double yi = b.get(i);
    const double d = a.get(i) - yi;
    if (std::isfinite(d)) s += d * d, ref_sq += yi * yi;
  }
  return s;
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
