#include "analysis/channel_stats.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "ops/bn_math.h"

namespace bnscope {

const ChannelColumn* ChannelStats::column(std::string_view name) const {
  for (const ChannelColumn& c : columns)
    if (c.name == name) return &c;
  return nullptr;
}

namespace {

std::string_view main_input(const Prepared& p) {
  return p.op->data_input();
}

bool is_per_channel(const Tensor& t, std::int64_t channels) {
  return t.rank() == 1 && t.dim(0) == channels;
}

std::vector<double> as_column(const Tensor& t) {
  return t.to_doubles();
}

// The mean and variance the grad actually normalized with; the variance is recovered from an
// inverse std when the run declared the cuDNN convention.
void add_used_statistics(const Prepared& p, ChannelStats& s) {
  const bool global = p.op->family == OpFamily::GlobalNorm;
  if (!p.op->is_grad && !global) return;
  const Tensor& mean = p.in(p.op->mean_input);
  const Tensor& var = p.in(p.op->variance_input);
  if (!is_per_channel(mean, s.channels) || !is_per_channel(var, s.channels)) return;
  std::vector<double> v = as_column(var);
  if (p.reserve_is_inv_std())
    for (double& x : v) x = variance_from_inv_std(x, p.epsilon);
  s.columns.push_back({"mean used", as_column(mean), false});
  s.columns.push_back({"variance used", std::move(v), false});
}

void add_magnitude_stats(const Prepared& p, const OutputTensor& out, ChannelStats& s) {
  const std::int64_t C = s.channels;
  const std::size_t n = static_cast<std::size_t>(C);
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> lo(n, inf), hi(n, -inf), sum(n, 0.0), sq(n, 0.0), bad(n, 0.0), cnt(n, 0.0);
  const ChannelView& v = p.view;
  for (std::int64_t o = 0; o < v.outer; ++o)
    for (std::int64_t c = 0; c < C; ++c)
      for (std::int64_t i = 0; i < v.inner; ++i) {
        const double x = out.tensor.get(v.index(o, c, i));
        const std::size_t k = static_cast<std::size_t>(c);
        if (!std::isfinite(x)) {
          bad[k] += 1;
          continue;
        }
        const double a = std::fabs(x);
        lo[k] = std::min(lo[k], a);
        hi[k] = std::max(hi[k], a);
        sum[k] += a;
        sq[k] += a * a;
        cnt[k] += 1;
      }
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (std::size_t k = 0; k < n; ++k) {
    if (cnt[k] == 0) lo[k] = hi[k] = nan;
    sum[k] = cnt[k] > 0 ? sum[k] / cnt[k] : nan;
    sq[k] = std::sqrt(sq[k]);
  }
  const std::string bars = "|" + out.name + "| ";
  s.columns.push_back({bars + "min", std::move(lo), false});
  s.columns.push_back({bars + "max", std::move(hi), false});
  s.columns.push_back({bars + "mean", std::move(sum), false});
  s.columns.push_back({bars + "L2", std::move(sq), false});
  s.columns.push_back({"non-finite " + out.name, std::move(bad), true});
}

// Non-finite values per channel across every input laid out like x.
void add_input_non_finite(const Prepared& p, ChannelStats& s) {
  std::vector<double> bad(static_cast<std::size_t>(s.channels), 0.0);
  const Tensor& x = p.in(main_input(p));
  for (const Tensor& t : p.inputs) {
    if (!same_shape(t, x)) continue;
    for (std::int64_t c = 0; c < s.channels; ++c)
      for (double v : channel_values(t, p.view, c))
        if (!std::isfinite(v)) bad[static_cast<std::size_t>(c)] += 1;
  }
  s.columns.push_back({"non-finite inputs", std::move(bad), true});
}

}  // namespace

const OutputTensor* data_output(const Prepared& p, const Result& r) {
  const Tensor& x = p.in(main_input(p));
  for (const OutputTensor& o : r.outputs)
    if (o.defined && same_shape(o.tensor, x) && x.rank() >= 2) return &o;
  return nullptr;
}

ChannelStats channel_stats(const Prepared& p, const Result& r) {
  ChannelStats s;
  s.channels = p.channels();
  for (const OutputTensor& o : r.outputs)
    if (o.defined && is_per_channel(o.tensor, s.channels))
      s.columns.push_back({o.name, as_column(o.tensor), false});
  add_used_statistics(p, s);
  if (const OutputTensor* d = data_output(p, r)) add_magnitude_stats(p, *d, s);
  add_input_non_finite(p, s);
  return s;
}

std::vector<double> channel_values(const Tensor& t, const ChannelView& v, std::int64_t c) {
  std::vector<double> out;
  if (c < 0 || c >= v.channels || t.numel() != v.outer * v.channels * v.inner) return out;
  out.reserve(static_cast<std::size_t>(v.per_channel()));
  for (std::int64_t o = 0; o < v.outer; ++o)
    for (std::int64_t i = 0; i < v.inner; ++i) out.push_back(t.get(v.index(o, c, i)));
  return out;
}

Histogram histogram(const std::vector<double>& values, int bins) {
  Histogram h;
  h.counts.assign(static_cast<std::size_t>(std::max(bins, 1)), 0);
  bool any = false;
  for (double v : values) {
    if (!std::isfinite(v)) {
      ++h.non_finite;
      continue;
    }
    h.lo = any ? std::min(h.lo, v) : v;
    h.hi = any ? std::max(h.hi, v) : v;
    any = true;
  }
  const double width = h.hi - h.lo;
  const std::size_t last = h.counts.size() - 1;
  for (double v : values) {
    if (!std::isfinite(v)) continue;
    std::size_t b = width > 0 ? static_cast<std::size_t>((v - h.lo) / width * double(last + 1)) : 0;
    ++h.counts[std::min(b, last)];
  }
  return h;
}

}  // namespace bnscope
