#include "analysis/channel_stats.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
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
constexpr std::int64_t kBlockElements = std::int64_t{1} << 16;

bool same_view(const ChannelView& a, const ChannelView& b) {
  return a.outer == b.outer && a.channels == b.channels && a.inner == b.inner;
}

// Per-lane accumulators of one thread. A lane is a channel when channels are last (each row of
// C values feeds lanes 0..C-1), or one of kLanes interleaved partial sums of a channel's plane
// otherwise; either way the inner loop runs over contiguous lanes without branches, which the
// compiler vectorizes. Min and max stay in the storage's precision (exact); sums in double.
template <class A>
struct Lanes {
  std::vector<A> min, max, abs_min, abs_max;
  std::vector<double> sum, abs_sum, sq_sum;
  std::vector<std::int64_t> non_finite;
  void reset(std::size_t n, bool magnitudes) {
    const A inf = std::numeric_limits<A>::infinity();
    min.assign(n, inf);
    max.assign(n, -inf);
    sum.assign(n, 0.0);
    non_finite.assign(n, 0);
    if (magnitudes) {
      abs_min.assign(n, inf);
      abs_max.assign(n, A(0));
      abs_sum.assign(n, 0.0);
      sq_sum.assign(n, 0.0);
    }
  }
};

constexpr std::int64_t kLanes = 16;

// NaN and Inf have every exponent bit set. Tested on the bits, not with a float compare, so the
// loops below stay free of branches and vectorize.
inline bool is_finite_bits(float x) {
  return (std::bit_cast<std::uint32_t>(x) & 0x7f800000u) != 0x7f800000u;
}
inline bool is_finite_bits(double x) {
  constexpr std::uint64_t e = 0x7ff0000000000000ull;
  return (std::bit_cast<std::uint64_t>(x) & e) != e;
}

// rows x L contiguous values into lanes [0, L).
template <bool kMag, class T, class A>
[[gnu::always_inline]] inline void add_rows(const T* data, std::int64_t L, std::int64_t rows,
                                            Lanes<A>& s) {
  constexpr A inf = std::numeric_limits<A>::infinity();
  A* __restrict mn = s.min.data();
  A* __restrict mx = s.max.data();
  double* __restrict sm = s.sum.data();
  std::int64_t* __restrict nf = s.non_finite.data();
  A* __restrict amn = kMag ? s.abs_min.data() : nullptr;
  A* __restrict amx = kMag ? s.abs_max.data() : nullptr;
  double* __restrict as = kMag ? s.abs_sum.data() : nullptr;
  double* __restrict sq = kMag ? s.sq_sum.data() : nullptr;
  for (std::int64_t r = 0; r < rows; ++r) {
    const T* row = data + r * L;
    for (std::int64_t k = 0; k < L; ++k) {
      const A x = static_cast<A>(to_float(row[k]));
      const bool fin = is_finite_bits(x);
      const A lo = fin ? x : inf, hi = fin ? x : -inf;
      const A m0 = mn[k], m1 = mx[k];
      mn[k] = lo < m0 ? lo : m0;
      mx[k] = hi > m1 ? hi : m1;
      sm[k] += static_cast<double>(fin ? x : A(0));
      nf[k] += static_cast<std::int64_t>(!fin);
      if constexpr (kMag) {
        const A a = std::fabs(x);
        const A av = fin ? a : A(0), alo = fin ? a : inf;
        const A a0 = amn[k], a1 = amx[k];
        amn[k] = alo < a0 ? alo : a0;
        amx[k] = av > a1 ? av : a1;
        as[k] += static_cast<double>(av);
        sq[k] += static_cast<double>(av) * static_cast<double>(av);
      }
    }
  }
}

// Lane `from` of `src` into lane `to` of `dst`.
template <class A>
void fold_lane(const Lanes<A>& src, std::size_t from, Lanes<A>& dst, std::size_t to,
               bool magnitudes) {
  dst.min[to] = std::min(dst.min[to], src.min[from]);
  dst.max[to] = std::max(dst.max[to], src.max[from]);
  dst.sum[to] += src.sum[from];
  dst.non_finite[to] += src.non_finite[from];
  if (magnitudes) {
    dst.abs_min[to] = std::min(dst.abs_min[to], src.abs_min[from]);
    dst.abs_max[to] = std::max(dst.abs_max[to], src.abs_max[from]);
    dst.abs_sum[to] += src.abs_sum[from];
    dst.sq_sum[to] += src.sq_sum[from];
  }
}

// Rows [begin, end) of the view (row r: the `inner` contiguous values of channel r % C).
template <bool kMag, class T, class A>
[[gnu::always_inline]] inline void scan_block(const T* data, const ChannelView& v,
                                              std::int64_t begin, std::int64_t end, Lanes<A>& acc,
                                              Lanes<A>& lanes, Lanes<A>& one) {
  const std::int64_t C = v.channels, inner = v.inner;
  if (inner == 1) {
    // Channels last: whole rows of C values straight into the channels' lanes; a block that
    // starts or ends inside a row takes those values one at a time.
    std::int64_t e = begin;
    while (e < end && e % C != 0) {
      one.reset(1, kMag);
      add_rows<kMag>(data + e, 1, 1, one);
      fold_lane(one, 0, acc, static_cast<std::size_t>(e % C), kMag);
      ++e;
    }
    const std::int64_t rows = (end - e) / C;
    add_rows<kMag>(data + e, C, rows, acc);
    for (e += rows * C; e < end; ++e) {
      one.reset(1, kMag);
      add_rows<kMag>(data + e, 1, 1, one);
      fold_lane(one, 0, acc, static_cast<std::size_t>(e % C), kMag);
    }
    return;
  }
  for (std::int64_t r = begin; r < end; ++r) {
    const T* row = data + r * inner;
    const std::int64_t full = inner / kLanes;
    lanes.reset(static_cast<std::size_t>(kLanes), kMag);
    add_rows<kMag>(row, kLanes, full, lanes);
    const auto c = static_cast<std::size_t>(r % C);
    for (std::size_t k = 0; k < static_cast<std::size_t>(kLanes); ++k)
      fold_lane(lanes, k, acc, c, kMag);
    for (std::int64_t i = full * kLanes; i < inner; ++i) {
      one.reset(1, kMag);
      add_rows<kMag>(row + i, 1, 1, one);
      fold_lane(one, 0, acc, c, kMag);
    }
  }
}

// The same loops compiled for AVX2 (wider lanes, the same per-lane order of operations, no FMA:
// the figures are bit for bit those of the baseline build) and picked when the CPU has it; the
// scan of a new output ends every run the app makes, so it should go at memory speed.
template <bool kMag, class T, class A>
void scan_block_baseline(const T* data, const ChannelView& v, std::int64_t begin, std::int64_t end,
                         Lanes<A>& acc, Lanes<A>& lanes, Lanes<A>& one) {
  scan_block<kMag>(data, v, begin, end, acc, lanes, one);
}
#if defined(__x86_64__) && defined(__GNUC__)
template <bool kMag, class T, class A>
[[gnu::target("avx2")]] void scan_block_avx2(const T* data, const ChannelView& v,
                                             std::int64_t begin, std::int64_t end, Lanes<A>& acc,
                                             Lanes<A>& lanes, Lanes<A>& one) {
  scan_block<kMag>(data, v, begin, end, acc, lanes, one);
}
bool has_avx2() {
  static const bool yes = __builtin_cpu_supports("avx2");
  return yes;
}
#endif

template <bool kMag, class T>
ChannelScan scan_typed(const T* data, const ChannelView& v, const ScanControl& ctl) {
  using A = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const std::int64_t rows = v.outer * v.channels;
  const std::int64_t rows_per_block = std::max<std::int64_t>(1, kBlockElements / v.inner);
  const std::int64_t blocks = (rows + rows_per_block - 1) / rows_per_block;
  const int threads = parallel_parts(blocks, 1, ctl.threads);
  const auto C = static_cast<std::size_t>(v.channels);
  // Thread t reads a fixed, contiguous run of blocks and the partials merge in thread order:
  // the same figures on every run with the same thread count.
  std::vector<Lanes<A>> parts(static_cast<std::size_t>(threads));
  for (Lanes<A>& p : parts) p.reset(C, kMag);
  std::atomic<bool> stopped{false};
  parallel_for(blocks, threads, [&](int t, std::int64_t b0, std::int64_t b1) {
    Lanes<A> lanes, one;
    Lanes<A>& acc = parts[static_cast<std::size_t>(t)];
    for (std::int64_t b = b0; b < b1; ++b) {
      if ((ctl.cancel && ctl.cancel->load(std::memory_order_relaxed)) ||
          stopped.load(std::memory_order_relaxed)) {
        stopped.store(true, std::memory_order_relaxed);
        return;
      }
      const std::int64_t r0 = b * rows_per_block, r1 = std::min(rows, r0 + rows_per_block);
      // Channels last, a row of the view is one value: the block is a run of values.
#if defined(__x86_64__) && defined(__GNUC__)
      if (has_avx2())
        scan_block_avx2<kMag>(data, v, r0, r1, acc, lanes, one);
      else
#endif
        scan_block_baseline<kMag>(data, v, r0, r1, acc, lanes, one);
      if (ctl.blocks_read) ctl.blocks_read->fetch_add(1, std::memory_order_relaxed);
    }
  });
  if (stopped.load()) throw Error(ErrorCode::Cancelled, "run cancelled");
  Lanes<A>& all = parts[0];
  for (std::size_t t = 1; t < parts.size(); ++t)
    for (std::size_t k = 0; k < C; ++k) fold_lane(parts[t], k, all, k, kMag);
  ChannelScan s;
  s.view = v;
  const std::int64_t per_channel = v.outer * v.inner;
  s.min.resize(C);
  s.max.resize(C);
  s.finite.resize(C);
  s.non_finite = all.non_finite;
  s.sum = std::move(all.sum);
  for (std::size_t k = 0; k < C; ++k) {
    s.finite[k] = per_channel - s.non_finite[k];
    s.min[k] = static_cast<double>(all.min[k]);
    s.max[k] = static_cast<double>(all.max[k]);
  }
  if (kMag) {
    s.abs_min.resize(C);
    s.abs_max.resize(C);
    for (std::size_t k = 0; k < C; ++k) {
      s.abs_min[k] = static_cast<double>(all.abs_min[k]);
      s.abs_max[k] = static_cast<double>(all.abs_max[k]);
    }
    s.abs_sum = std::move(all.abs_sum);
    s.sq_sum = std::move(all.sq_sum);
  }
  return s;
}

void init_scan(ChannelScan& s, const ChannelView& v) {
  const auto n = static_cast<std::size_t>(v.channels);
  s.view = v;
  s.min.assign(n, kInf);
  s.max.assign(n, -kInf);
  s.abs_min.assign(n, kInf);
  s.abs_max.assign(n, -kInf);
  s.sum.assign(n, 0.0);
  s.abs_sum.assign(n, 0.0);
  s.sq_sum.assign(n, 0.0);
  s.finite.assign(n, 0);
  s.non_finite.assign(n, 0);
}

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
        i.tensor.numel() == t.numel() && !i.scan.finite.empty() && same_view(i.scan.view, v))
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

ChannelScan scan_channels(const Tensor& t, const ChannelView& v, const ScanControl& ctl,
                          bool magnitudes) {
  if (v.channels <= 0 || v.inner <= 0 || v.outer <= 0 ||
      t.numel() != v.outer * v.channels * v.inner) {
    ChannelScan s;
    init_scan(s, ChannelView{0, std::max<std::int64_t>(v.channels, 0), 0});
    return s;
  }
  const auto run = [&](const auto* data) {
    return magnitudes ? scan_typed<true>(data, v, ctl) : scan_typed<false>(data, v, ctl);
  };
  switch (t.dtype()) {
    case DType::F16:
      return run(t.data<f16>());
    case DType::BF16:
      return run(t.data<bf16>());
    case DType::F32:
      return run(t.data<float>());
    case DType::F64:
      return run(t.data<double>());
  }
  return {};
}

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
                           const ScanControl& ctl, const ChannelStats* previous) {
  ChannelStats s;
  s.channels = p.channels();
  for (const OutputTensor& o : r.outputs)
    if (o.defined && is_per_channel(o.tensor, s.channels))
      s.columns.push_back({o.name, as_column(o.tensor), false});
  add_used_statistics(p, s);
  const Tensor& x = p.in(main_input(p));
  s.inputs = summarize_inputs(problem, &x, &p.view, ctl, previous ? &previous->inputs : nullptr);
  if (const OutputTensor* d = data_output(p, r)) {
    s.data_output = scan_channels(d->tensor, p.view, ctl, true);
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
  if (scan &&
      (!same_view(scan->view, v) || scan->finite.size() != static_cast<std::size_t>(v.channels)))
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
