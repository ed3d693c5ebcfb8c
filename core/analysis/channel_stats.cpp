#include "analysis/channel_stats.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "ops/bn_math.h"
#include "tensor/error.h"
#include "tensor/parallel.h"

namespace bnscope {

const ChannelColumn* ChannelStats::column(std::string_view name) const {
  for (const ChannelColumn& c : columns)
    if (c.name == name) return &c;
  return nullptr;
}

const InputSummary* ChannelStats::input(std::string_view name) const {
  for (const InputSummary& i : inputs)
    if (i.name == name) return &i;
  return nullptr;
}

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

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

void add_magnitude_stats(const std::string& name, const ChannelScan& m, ChannelStats& s) {
  const std::size_t n = m.finite.size();
  std::vector<double> lo(n), hi(n), mean(n), l2(n), bad(n);
  for (std::size_t k = 0; k < n; ++k) {
    const bool any = m.finite[k] > 0;
    lo[k] = any ? m.abs_min[k] : kNaN;
    hi[k] = any ? m.abs_max[k] : kNaN;
    mean[k] = any ? m.abs_sum[k] / static_cast<double>(m.finite[k]) : kNaN;
    l2[k] = std::sqrt(m.sq_sum[k]);
    bad[k] = static_cast<double>(m.non_finite[k]);
  }
  const std::string bars = "|" + name + "| ";
  s.columns.push_back({bars + "min", std::move(lo), false});
  s.columns.push_back({bars + "max", std::move(hi), false});
  s.columns.push_back({bars + "mean", std::move(mean), false});
  s.columns.push_back({bars + "L2", std::move(l2), false});
  s.columns.push_back({"non-finite " + name, std::move(bad), true});
}

// A scan of t through v made before (this run's or the previous run's), or a new one.
const ChannelScan* known_scan(const Tensor& t, const ChannelView& v,
                              const std::vector<InputSummary>& known) {
  for (const InputSummary& i : known)
    if (i.tensor.shares_storage_with(t) && i.tensor.dtype() == t.dtype() &&
        i.tensor.numel() == t.numel() && !i.scan.finite.empty() && i.scan.view == v)
      return &i.scan;
  return nullptr;
}

const InputSummary* known_summary(const std::string& name, const Tensor& t,
                                  const std::vector<InputSummary>* known) {
  if (!known) return nullptr;
  for (const InputSummary& i : *known)
    if (i.name == name && i.tensor.shares_storage_with(t) && i.tensor.dtype() == t.dtype() &&
        i.tensor.shape() == t.shape())
      return &i;
  return nullptr;
}

// Every input of the problem: x-shaped ones per channel (through view), the others whole.
std::vector<InputSummary> summarize_inputs(const Problem& problem, const Tensor* x,
                                           const ChannelView* view, const ScanControl& ctl,
                                           const std::vector<InputSummary>* previous) {
  std::vector<InputSummary> out;
  for (const auto& [name, t] : problem.inputs) {
    InputSummary in;
    in.name = name;
    in.tensor = t;  // shares the storage
    const bool per_channel = x && view && t.rank() >= 2 && same_shape(t, *x);
    const ChannelScan* reuse = per_channel && previous ? known_scan(t, *view, *previous) : nullptr;
    if (reuse) {
      in.scan = *reuse;
      in.summary = summarize(in.scan);
    } else if (per_channel) {
      in.scan = scan_channels(t, *view, ctl, false);
      in.summary = summarize(in.scan);
    } else if (const InputSummary* before = known_summary(name, t, previous)) {
      in.summary = before->summary;
    } else {
      in.summary = summarize(t, ctl);
    }
    out.push_back(std::move(in));
  }
  return out;
}

// Non-finite values per channel across every input laid out like x, from the inputs' scans.
void add_input_non_finite(const Prepared& p, const ScanControl& ctl, ChannelStats& s) {
  std::vector<double> bad(static_cast<std::size_t>(s.channels), 0.0);
  const Tensor& x = p.in(main_input(p));
  for (const Tensor& t : p.inputs) {
    if (!same_shape(t, x)) continue;
    ChannelScan fresh;
    const ChannelScan* scan = known_scan(t, p.view, s.inputs);
    if (!scan) {  // converted to the op's dtype by prepare: another buffer
      fresh = scan_channels(t, p.view, ctl, false);
      scan = &fresh;
    }
    for (std::size_t k = 0; k < bad.size(); ++k) bad[k] += static_cast<double>(scan->non_finite[k]);
  }
  s.columns.push_back({"non-finite inputs", std::move(bad), true});
}

}  // namespace

TensorSummary summarize(const ChannelScan& s) {
  TensorSummary out;
  double lo = kInf, hi = -kInf, sum = 0;
  std::int64_t finite = 0;
  for (std::size_t k = 0; k < s.finite.size(); ++k) {
    out.non_finite += s.non_finite[k];
    if (s.finite[k] == 0) continue;
    lo = std::min(lo, s.min[k]);
    hi = std::max(hi, s.max[k]);
    sum += s.sum[k];
    finite += s.finite[k];
  }
  out.min = finite ? lo : kNaN;
  out.max = finite ? hi : kNaN;
  out.mean = finite ? sum / static_cast<double>(finite) : kNaN;
  return out;
}

TensorSummary summarize(const Tensor& t, const ScanControl& ctl) {
  if (t.numel() == 0) return {kNaN, kNaN, kNaN, 0};
  // One channel of single values: split into blocks like any scan, so it is threaded and
  // cancellable whatever the tensor's shape.
  return summarize(scan_channels(t, ChannelView{t.numel(), 1, 1}, ctl, false));
}

const OutputTensor* data_output(const Prepared& p, const Result& r) {
  const Tensor& x = p.in(main_input(p));
  for (const OutputTensor& o : r.outputs)
    if (o.defined && same_shape(o.tensor, x) && x.rank() >= 2) return &o;
  return nullptr;
}

ChannelStats channel_stats(const Problem& problem, const Prepared& p, const Result& r,
                           const ScanControl& ctl, const ChannelStats* previous,
                           const ChannelScan* data_scan) {
  ChannelStats s;
  s.channels = p.channels();
  for (const OutputTensor& o : r.outputs)
    if (o.defined && is_per_channel(o.tensor, s.channels))
      s.columns.push_back({o.name, as_column(o.tensor), false});
  add_used_statistics(p, s);
  const Tensor& x = p.in(main_input(p));
  s.inputs = summarize_inputs(problem, &x, &p.view, ctl, previous ? &previous->inputs : nullptr);
  if (const OutputTensor* d = data_output(p, r)) {
    s.data_output = data_scan ? *data_scan : scan_channels(d->tensor, p.view, ctl, true);
    add_magnitude_stats(d->name, s.data_output, s);
  }
  add_input_non_finite(p, ctl, s);
  return s;
}

ChannelStats channel_stats(const Prepared& p, const Result& r, const ScanControl& ctl) {
  Problem problem;
  for (std::size_t i = 0; i < p.inputs.size() && i < p.op->inputs.size(); ++i)
    problem.inputs[std::string(p.op->inputs[i].name)] = p.inputs[i];
  return channel_stats(problem, p, r, ctl);
}

std::vector<InputSummary> input_summaries(const Problem& problem, const ScanControl& ctl,
                                          const std::vector<InputSummary>* previous) {
  return summarize_inputs(problem, nullptr, nullptr, ctl, previous);
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

namespace {

template <class T, class Fn>
void for_channel(const T* data, const ChannelView& v, std::int64_t c, Fn fn) {
  for (std::int64_t o = 0; o < v.outer; ++o) {
    const T* row = data + v.index(o, c, 0);
    for (std::int64_t i = 0; i < v.inner; ++i) fn(static_cast<double>(to_float(row[i])));
  }
}

template <class T>
Histogram channel_histogram_typed(const T* data, const ChannelView& v, std::int64_t c, int bins,
                                  const ChannelScan* scan) {
  Histogram h;
  h.counts.assign(static_cast<std::size_t>(std::max(bins, 1)), 0);
  const auto k = static_cast<std::size_t>(c);
  if (scan) {
    h.non_finite = scan->non_finite[k];
    h.lo = scan->finite[k] ? scan->min[k] : 0;
    h.hi = scan->finite[k] ? scan->max[k] : 0;
  } else {
    bool any = false;
    for_channel(data, v, c, [&](double x) {
      if (!std::isfinite(x)) {
        ++h.non_finite;
        return;
      }
      h.lo = any ? std::min(h.lo, x) : x;
      h.hi = any ? std::max(h.hi, x) : x;
      any = true;
    });
  }
  // The same binning as histogram(): a value falls in the bin its offset from lo says.
  const double width = h.hi - h.lo;
  const std::size_t last = h.counts.size() - 1;
  for_channel(data, v, c, [&](double x) {
    if (!std::isfinite(x)) return;
    std::size_t b = width > 0 ? static_cast<std::size_t>((x - h.lo) / width * double(last + 1)) : 0;
    ++h.counts[std::min(b, last)];
  });
  return h;
}

}  // namespace

Histogram channel_histogram(const Tensor& t, const ChannelView& v, std::int64_t c, int bins,
                            const ChannelScan* scan) {
  if (c < 0 || c >= v.channels || t.numel() != v.outer * v.channels * v.inner || v.inner <= 0)
    return Histogram{0, 0, std::vector<std::int64_t>(static_cast<std::size_t>(std::max(bins, 1))),
                     0};
  if (scan && (scan->view != v || scan->finite.size() != static_cast<std::size_t>(v.channels)))
    scan = nullptr;
  switch (t.dtype()) {
    case DType::F16:
      return channel_histogram_typed(t.data<f16>(), v, c, bins, scan);
    case DType::BF16:
      return channel_histogram_typed(t.data<bf16>(), v, c, bins, scan);
    case DType::F32:
      return channel_histogram_typed(t.data<float>(), v, c, bins, scan);
    case DType::F64:
      return channel_histogram_typed(t.data<double>(), v, c, bins, scan);
  }
  return {};
}

}  // namespace bnscope
