#include "analysis/diff.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <queue>

#include "analysis/diff_scan.h"
#include "tensor/convert_elements.h"
#include "tensor/parallel.h"
#include "tensor/stride_pipeline.h"

namespace bnscope {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

constexpr int kDecades = kHistogramDecadeHigh - kHistogramDecadeLow;

// The bin of a finite positive error is 1 + clamp(floor(log10(e)) - low + 1, 0, decades). Its
// edges, found once by bisection with that very expression, let every element be binned by
// comparisons instead of a log10 call each: edge[t - 1] is the least double whose decade
// floor(log10(e)) reaches low - 1 + t.
std::array<double, kDecades> decade_edges() {
  std::array<double, kDecades> edges{};
  for (int t = 1; t <= kDecades; ++t) {
    const int decade = kHistogramDecadeLow - 1 + t;
    const auto reaches = [decade](std::uint64_t bits) {
      double e;
      std::memcpy(&e, &bits, sizeof e);
      return static_cast<int>(std::floor(std::log10(e))) >= decade;
    };
    // Positive doubles order as their bit patterns: the first pattern that reaches the decade.
    std::uint64_t lo = 1, hi = 0x7fefffffffffffffull;  // reaches(lo) false, reaches(hi) true
    while (hi - lo > 1) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      (reaches(mid) ? hi : lo) = mid;
    }
    std::memcpy(&edges[static_cast<std::size_t>(t - 1)], &hi, sizeof hi);
  }
  return edges;
}

int histogram_bin(double abs_error, bool nan) {
  if (nan) return histogram_bin_count() - 1;
  if (abs_error == 0) return 0;
  if (!(abs_error < kInf)) return kDecades + 1;
  static const std::array<double, kDecades> edges = decade_edges();
  int bin = 1;  // counted without branches: errors fall in every decade at random
  for (double edge : edges) bin += abs_error >= edge ? 1 : 0;
  return bin;
}

// Channel of flat element i, or -1 when the output has no channel axis.
std::int64_t channel_of(std::int64_t i, const Shape& shape, std::int64_t numel,
                        const ChannelView* view) {
  if (!view || view->channels <= 0) return -1;
  if (shape.size() >= 2 && numel == view->outer * view->channels * view->inner)
    return (i / view->inner) % view->channels;
  if (shape.size() == 1 && numel == view->channels) return i;
  return -1;
}

std::vector<std::int64_t> unravel(std::int64_t i, const Shape& shape) {
  std::vector<std::int64_t> c(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    const std::int64_t n = std::max<std::int64_t>(shape[d], 1);
    c[d] = i % n;
    i /= n;
  }
  return c;
}

// Elements [begin, begin + n) as doubles, as Tensor::to_doubles gives them.
void doubles_of(const Tensor& t, std::int64_t begin, std::int64_t n, double* out) {
  visit_dtype(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = static_cast<const T*>(t.raw()) + begin;
    for (std::int64_t i = 0; i < n; ++i) out[i] = static_cast<double>(to_float(p[i]));
  });
}

struct Scored {
  double score;
  std::int64_t index;
  bool operator>(const Scored& o) const { return score > o.score; }
};

// Order-free figures of a range of elements (counts and maxima); the sums and the worst list
// are made from the errors and scores a scan leaves, in element order. One thread per 16 K
// elements at most.
constexpr std::int64_t kScanChunk = std::int64_t{1} << 14;
// The in-order part runs one stride behind the scan (stride_pipeline.h): two strides' errors
// and scores, 16 bytes an element, 0.5 MiB in all. The app holds the two output sets it compares
// beside the inputs, 1.5x the data; a comparison must add next to nothing to that. Pieces small
// enough that the threads end a stride together.
constexpr std::int64_t kScanStride = std::int64_t{1} << 14;
constexpr std::int64_t kScanPiece = std::int64_t{1} << 12;

// A scan's counts and maxima per channel, one array each: a run of consecutive channels (channels
// last) is updated by vector loops.
struct ChannelFigures {
  std::vector<std::int64_t> count, mismatches;
  std::vector<double> max_abs, max_rel;

  explicit ChannelFigures(std::size_t n = 0)
      : count(n, 0), mismatches(n, 0), max_abs(n, 0.0), max_rel(n, 0.0) {}
  // Channels c0, c0 + 1, ... take elements j0 .. j1 - 1 of the arrays.
  void add_run(std::size_t c0, std::int64_t j0, std::int64_t j1, const double* mismatch,
               const double* channel_abs, const double* rel) {
    const std::int64_t n = j1 - j0;
    std::int64_t* __restrict const cnt = count.data() + c0;
    std::int64_t* __restrict const mis = mismatches.data() + c0;
    double* __restrict const mabs = max_abs.data() + c0;
    double* __restrict const mrel = max_rel.data() + c0;
    mismatch += j0, channel_abs += j0, rel += j0;
    for (std::int64_t q = 0; q < n; ++q) {
      cnt[q] += 1;
      mis[q] += mismatch[q] != 0 ? 1 : 0;
      mabs[q] = std::max(mabs[q], channel_abs[q]);
      mrel[q] = std::max(mrel[q], rel[q]);
    }
  }
};

struct Scan {
  std::int64_t nan_both = 0, nan_mismatches = 0, mismatches = 0, finite_count = 0;
  double tolerance_ratio = 0, required_atol = 0, max_rel = 0, max_abs_reference = 0;
  double max_abs = 0;
  std::int64_t max_abs_index = -1;  // the first index holding max_abs
  std::uint64_t max_ulp = 0;
  std::vector<std::int64_t> histogram;
  ChannelFigures channels;
};

struct ScanSetup {
  const Tensor& reference;
  const Tensor& candidate;
  Tolerance tolerance;
  DType dtype;
  bool nan_equal;
  bool channels, flat_channels;
  const ChannelView* view;
  // atol, rtol >= 0: an exact match is within tolerance and leaves the maxima where they start.
  bool nonnegative_tolerance;
};

// The channels of consecutive elements from `begin` on: element i itself for a 1-D
// per-channel output, else (i / inner) % channels, kept by counters instead of a division per
// element.
class ChannelWalk {
 public:
  ChannelWalk(const ChannelView* view, bool flat, std::int64_t begin)
      : view_(view), flat_(flat), i_(begin) {
    if (!flat && view && view->inner > 0 && view->channels > 0) {
      channel_ = (begin / view->inner) % view->channels;
      inner_ = begin % view->inner;
    }
  }
  // The current element's channel; then on to the next element.
  std::size_t next() {
    if (flat_) return static_cast<std::size_t>(i_++);
    const auto c = static_cast<std::size_t>(channel_);
    if (++inner_ == view_->inner) {
      inner_ = 0;
      if (++channel_ == view_->channels) channel_ = 0;
    }
    return c;
  }
  // Consecutive elements have consecutive channels: a 1-D per-channel output, or channels last.
  bool stepwise() const { return flat_ || (view_ && view_->inner == 1); }
  // When stepwise(): the next n elements as spans f(c0, j0, j1), element j0 + q of the n in
  // channel c0 + q; then on past them.
  template <class F>
  void spans(std::int64_t n, F f) {
    if (flat_) {
      f(static_cast<std::size_t>(i_), std::int64_t{0}, n);
      i_ += n;
      return;
    }
    const std::int64_t channels = view_->channels;
    for (std::int64_t j = 0; j < n;) {
      const std::int64_t run = std::min(n - j, channels - channel_);
      f(static_cast<std::size_t>(channel_), j, j + run);
      j += run;
      channel_ += run;
      if (channel_ == channels) channel_ = 0;
    }
  }
  // The next n elements as runs of one channel each: f(channel, j0, j1) for elements
  // [j0, j1) of the n, in order; then on past them.
  template <class F>
  void each(std::int64_t n, F f) {
    if (flat_) {
      for (std::int64_t j = 0; j < n; ++j) f(static_cast<std::size_t>(i_ + j), j, j + 1);
      i_ += n;
      return;
    }
    const std::int64_t inner = view_->inner, channels = view_->channels;
    std::int64_t c = channel_, at = inner_;
    for (std::int64_t j = 0; j < n;) {
      const std::int64_t run = std::min(n - j, inner - at);
      f(static_cast<std::size_t>(c), j, j + run);
      j += run;
      at += run;
      if (at == inner) {
        at = 0;
        if (++c == channels) c = 0;
      }
    }
    channel_ = c;
    inner_ = at;
  }

 private:
  const ChannelView* view_;
  bool flat_;
  std::int64_t i_, channel_ = 0, inner_ = 0;
};

// Elements [begin, end): figures into sc; error[j] is the element's error where finite (else 0,
// what it adds to the sums) and score[j] what ranks it among the worst.
void scan_range(const ScanSetup& s, std::int64_t begin, std::int64_t end, Scan& sc, double* error,
                double* score_out) {
  constexpr std::int64_t kBlock = 8192;
  double ref_block[kBlock], cand_block[kBlock];
  ChannelWalk walk(s.view, s.flat_channels, begin);
  for (std::int64_t i = begin; i < end; ++i) {
    if ((i - begin) % kBlock == 0) {
      const std::int64_t n = std::min(kBlock, end - i);
      doubles_of(s.reference, i, n, ref_block);
      doubles_of(s.candidate, i, n, cand_block);
    }
    const double b = ref_block[(i - begin) % kBlock];
    const double a = cand_block[(i - begin) % kBlock];
    // Bitwise-equal finite values (most elements of two good backends): every figure below
    // reduces to these, with no error, no ulp and nothing to rank.
    if (s.nonnegative_tolerance && std::memcmp(&a, &b, sizeof a) == 0 && std::fabs(b) < kInf) {
      if (sc.max_abs_index < 0) {
        sc.max_abs = 0;
        sc.max_abs_index = i;
      }
      sc.max_abs_reference = std::max(sc.max_abs_reference, std::fabs(b));
      ++sc.finite_count;
      ++sc.histogram[0];
      if (s.channels) ++sc.channels.count[walk.next()];
      error[i - begin] = 0;
      score_out[i - begin] = 0;
      continue;
    }
    const bool nan_a = std::isnan(a), nan_b = std::isnan(b);
    bool mismatch = false;
    double abs_err = 0, rel_err = 0, score = 0;
    if (nan_a || nan_b) {
      if (nan_a && nan_b) {
        ++sc.nan_both;
        mismatch = !s.nan_equal;
      } else {
        ++sc.nan_mismatches;
        mismatch = true;
      }
      if (mismatch) score = kInf;
      ++sc.histogram[static_cast<std::size_t>(histogram_bin(0, mismatch))];
    } else {
      abs_err = a == b ? 0.0 : std::fabs(a - b);  // equal infinities agree
      rel_err = abs_err == 0 ? 0.0 : (b == 0 ? kInf : abs_err / std::fabs(b));
      const double allowed = s.tolerance.atol + s.tolerance.rtol * std::fabs(b);
      mismatch = !(abs_err <= allowed);
      const double ratio = allowed > 0 ? abs_err / allowed : (abs_err > 0 ? kInf : 0.0);
      sc.tolerance_ratio = std::max(sc.tolerance_ratio, ratio);
      sc.required_atol = std::max(sc.required_atol, abs_err - s.tolerance.rtol * std::fabs(b));
      if (abs_err > sc.max_abs || sc.max_abs_index < 0) {
        sc.max_abs = abs_err;
        sc.max_abs_index = i;
      }
      sc.max_rel = std::max(sc.max_rel, rel_err);
      sc.max_abs_reference = std::max(sc.max_abs_reference, std::fabs(b));
      sc.max_ulp = std::max(sc.max_ulp, ulp_distance(a, b, s.dtype));
      if (std::isfinite(abs_err)) ++sc.finite_count;
      score = abs_err;
      ++sc.histogram[static_cast<std::size_t>(histogram_bin(abs_err, false))];
    }
    if (mismatch) ++sc.mismatches;
    if (s.channels) {
      const std::size_t c = walk.next();
      ChannelFigures& ce = sc.channels;
      ++ce.count[c];
      if (mismatch) ++ce.mismatches[c];
      ce.max_abs[c] = std::max(ce.max_abs[c], (nan_a != nan_b) ? kInf : abs_err);
      ce.max_rel[c] = std::max(ce.max_rel[c], rel_err);
    }
    error[i - begin] = std::isfinite(abs_err) ? abs_err : 0.0;
    score_out[i - begin] = score;
  }
}

// Both sides float32, float16 or bfloat16: the element arithmetic vectorized (diff_scan.h) for
// [begin, end), whose length is a multiple of its lanes, on the values widened to float32; the
// figures that need element order are taken here per block, as the scalar loop takes them.
void scan_range_floats(const ScanSetup& s, std::int64_t begin, std::int64_t end, Scan& sc,
                       double* error, double* score) {
  constexpr std::int64_t kBlock = 1024;
  static const std::array<double, kDecades> edges = decade_edges();
  diff_scan::Params p{s.tolerance.atol, s.tolerance.rtol, s.nan_equal, edges.data(),
                      histogram_bin_count() - 1};
  p.ulp = s.dtype;
  static_assert(kDecades == diff_scan::kEdges);
  double rel[kBlock], channel_abs[kBlock], mismatch[kBlock];
  float ref_block[kBlock], cand_block[kBlock];
  ChannelWalk walk(s.view, s.flat_channels, begin);
  diff_scan::Figures f;
  f.tolerance_ratio = sc.tolerance_ratio;
  f.required_atol = sc.required_atol;
  f.max_rel = sc.max_rel;
  f.max_abs_reference = sc.max_abs_reference;
  f.max_ulp = sc.max_ulp;
  for (std::int64_t b0 = begin; b0 < end; b0 += kBlock) {
    const std::int64_t n = std::min(kBlock, end - b0);
    const float* ref = floats_of(s.reference, b0, n, ref_block);
    const float* cand = floats_of(s.candidate, b0, n, cand_block);
    f.max_abs = -1;
    diff_scan::scan_f32(ref, cand, n, p,
                        {error + (b0 - begin), score + (b0 - begin), rel, channel_abs, mismatch,
                         sc.histogram.data()},
                        f);
    // The first element holding the largest error, as the element loop keeps it.
    if (f.max_abs >= 0 && (sc.max_abs_index < 0 || f.max_abs > sc.max_abs)) {
      for (std::int64_t j = 0; j < n; ++j) {
        const double b = ref[j], a = cand[j];
        if (std::isnan(a) || std::isnan(b)) continue;
        if ((a == b ? 0.0 : std::fabs(a - b)) == f.max_abs) {
          sc.max_abs = f.max_abs;
          sc.max_abs_index = b0 + j;
          break;
        }
      }
    }
    if (!s.channels) continue;
    if (walk.stepwise()) {
      walk.spans(n, [&](std::size_t c0, std::int64_t j0, std::int64_t j1) {
        sc.channels.add_run(c0, j0, j1, mismatch, channel_abs, rel);
      });
      continue;
    }
    walk.each(n, [&](std::size_t c, std::int64_t j0, std::int64_t j1) {
      ChannelFigures& ce = sc.channels;
      std::int64_t mismatches = ce.mismatches[c];
      double max_abs = ce.max_abs[c], max_rel = ce.max_rel[c];
      for (std::int64_t q = j0; q < j1; ++q) {
        mismatches += mismatch[q] != 0 ? 1 : 0;
        max_abs = std::max(max_abs, channel_abs[q]);
        max_rel = std::max(max_rel, rel[q]);
      }
      ce.count[c] += j1 - j0;
      ce.mismatches[c] = mismatches;
      ce.max_abs[c] = max_abs;
      ce.max_rel[c] = max_rel;
    });
  }
  sc.tolerance_ratio = f.tolerance_ratio;
  sc.required_atol = f.required_atol;
  sc.max_rel = f.max_rel;
  sc.max_abs_reference = f.max_abs_reference;
  sc.max_ulp = f.max_ulp;
  sc.finite_count += static_cast<std::int64_t>(f.finite);
  sc.mismatches += static_cast<std::int64_t>(f.mismatches);
  sc.nan_both += static_cast<std::int64_t>(f.nan_both);
  sc.nan_mismatches += static_cast<std::int64_t>(f.nan_mismatches);
}

// One thread's part: pairs of float32, float16 and bfloat16 through the vector scan up to its
// last whole vector, the rest (float64 on either side, the part's last few elements) through the
// scalar loop.
void scan_part(const ScanSetup& s, std::int64_t begin, std::int64_t end, Scan& sc, double* error,
               double* score) {
  std::int64_t mid = begin;
  if (s.reference.dtype() != DType::F64 && s.candidate.dtype() != DType::F64) {
    const std::int64_t lanes = diff_scan::lanes();
    mid = begin + (end - begin) / lanes * lanes;
    scan_range_floats(s, begin, mid, sc, error, score);
  }
  if (mid < end) scan_range(s, mid, end, sc, error + (mid - begin), score + (mid - begin));
}

}  // namespace

double pairwise_sum(const double (&partials)[kMeanLanes]) {
  static_assert(kMeanLanes == 8);
  return ((partials[0] + partials[1]) + (partials[2] + partials[3])) +
         ((partials[4] + partials[5]) + (partials[6] + partials[7]));
}

int histogram_bin_count() {
  return kHistogramDecadeHigh - kHistogramDecadeLow + 3;
}

std::string histogram_bin_label(int bin) {
  if (bin <= 0) return "0";
  if (bin == histogram_bin_count() - 1) return "NaN";
  const int decade = kHistogramDecadeLow + bin - 1;
  auto p = [](int e) { return "1e" + std::to_string(e); };
  if (bin == 1) return "<" + p(decade);
  if (bin == histogram_bin_count() - 2) return ">=" + p(decade - 1);
  return p(decade - 1) + ".." + p(decade);
}

double Comparison::worst_tolerance_ratio() const {
  double r = 0;
  for (const OutputDiff& o : outputs)
    if (o.compared) r = std::max(r, o.tolerance_ratio);
  return r;
}

bool DiffReport::passed() const {
  return std::all_of(comparisons.begin(), comparisons.end(),
                     [](const Comparison& c) { return c.passed; });
}

OutputDiff compare_output(const OutputTensor& reference, const OutputTensor& candidate,
                          const DiffOptions& options, const ChannelView* view) {
  OutputDiff d;
  d.name = candidate.name;
  d.dtype = candidate.tensor.dtype();
  d.shape = candidate.tensor.shape();
  d.tolerance = options.tolerance_for(d.name, d.dtype);
  d.histogram.assign(static_cast<std::size_t>(histogram_bin_count()), 0);
  if (!reference.defined || !candidate.defined) {
    d.note = std::string(reference.defined ? "candidate" : "reference") +
             " leaves this output undefined (TensorFlow does not initialize it); not compared";
    return d;
  }
  const Tensor& rt = reference.tensor;
  const Tensor& ct = candidate.tensor;
  if (rt.numel() != ct.numel()) {
    d.note = "element counts differ: reference " + shape_str(rt.shape()) + ", candidate " +
             shape_str(ct.shape());
    d.compared = true;
    d.passed = false;
    d.tolerance_ratio = kInf;
    return d;
  }
  if (rt.shape() != ct.shape())
    d.note = "shapes differ (reference " + shape_str(rt.shape()) + ", candidate " +
             shape_str(ct.shape()) + "); compared as flat buffers — a layout mix-up?";
  d.compared = true;
  d.count = ct.numel();

  const bool channels = channel_of(0, d.shape, d.count, view) >= 0;
  const bool flat_channels = channels && d.shape.size() < 2;
  if (channels) {
    d.channels.resize(static_cast<std::size_t>(view->channels));
    for (std::int64_t c = 0; c < view->channels; ++c)
      d.channels[static_cast<std::size_t>(c)].channel = c;
  }

  // Every figure but the sums and the worst list is a count or a maximum, the same in any order:
  // chunks of elements are scanned on every core for those, each element's finite error and
  // score kept; then one pass in element order adds the errors up and picks the worst, as a
  // single loop would (the same sums to the last bit, in mean_abs's partials; the same ties kept).
  const int threads = parallel_parts(d.count, kScanChunk);
  std::vector<Scan> scans;
  for (int t = 0; t < threads; ++t) {
    Scan sc;
    sc.histogram.assign(d.histogram.size(), 0);
    if (channels) sc.channels = ChannelFigures(d.channels.size());
    scans.push_back(std::move(sc));
  }
  const ScanSetup setup{rt,
                        ct,
                        d.tolerance,
                        d.dtype,
                        options.nan_equal,
                        channels,
                        flat_channels,
                        view,
                        d.tolerance.atol >= 0 && d.tolerance.rtol >= 0};
  // Two strides' errors and scores: the in-order part reads one while the next is scanned.
  const std::int64_t stride = std::clamp<std::int64_t>(d.count, 1, kScanStride);
  std::vector<double> errors(static_cast<std::size_t>(2 * stride));
  std::vector<double> scores(errors.size());
  std::priority_queue<Scored, std::vector<Scored>, std::greater<Scored>> worst;
  const std::size_t k = static_cast<std::size_t>(std::max(options.worst_k, 0));
  double sum_abs[kMeanLanes] = {};
  ChannelWalk walk(view, flat_channels, 0);
  std::vector<double> channel_sums(d.channels.size(), 0.0);  // of the errors, in element order
  const auto span_of = [&](std::int64_t s) { return std::min(stride, d.count - s * stride); };
  StridePass pass;
  pass.strides = (d.count + stride - 1) / stride;
  pass.pieces = [&](std::int64_t s) { return (span_of(s) + kScanPiece - 1) / kScanPiece; };
  pass.piece = [&](int t, std::int64_t s, std::int64_t p) {
    const std::int64_t b = p * kScanPiece, e = std::min(span_of(s), b + kScanPiece);
    const std::size_t buffer = static_cast<std::size_t>((s % 2) * stride + b);
    scan_part(setup, s * stride + b, s * stride + e, scans[static_cast<std::size_t>(t)],
              errors.data() + buffer, scores.data() + buffer);
  };
  pass.after = [&](std::int64_t s) {
    const std::int64_t start = s * stride, span = span_of(s);
    const double* const error = errors.data() + (s % 2) * stride;
    const double* const score_of = scores.data() + (s % 2) * stride;
    // Three plain loops rather than one with every branch: the same additions in the same
    // order per sum, the same pushes in the same order.
    // In a local: the compiler cannot tell a store to sum_abs from one into error[], and would
    // store and reload it per element.
    // Every stride but the last holds a whole number of groups, so element j's partial is
    // j modulo kMeanLanes here as in the whole output.
    double total[kMeanLanes];
    std::copy(sum_abs, sum_abs + kMeanLanes, total);
    const std::int64_t whole = span / kMeanLanes * kMeanLanes;
    for (std::int64_t g = 0; g < whole; g += kMeanLanes)
      for (int lane = 0; lane < kMeanLanes; ++lane) total[lane] += error[g + lane];
    for (std::int64_t e = whole; e < span; ++e) total[e - whole] += error[e];
    std::copy(total, total + kMeanLanes, sum_abs);
    if (channels && walk.stepwise()) {
      walk.spans(span, [&](std::size_t c0, std::int64_t j0, std::int64_t j1) {
        double* __restrict const sum = channel_sums.data() + c0;
        const double* __restrict const e = error + j0;
        for (std::int64_t j = 0; j < j1 - j0; ++j) sum[j] += e[j];
      });
    } else if (channels) {
      walk.each(span, [&](std::size_t c, std::int64_t j0, std::int64_t j1) {
        double sum = channel_sums[c];
        for (std::int64_t j = j0; j < j1; ++j) sum += error[j];
        channel_sums[c] = sum;
      });
    }
    if (k > 0) {
      // A score enters while the list is short and positive, or above the list's least.
      double floor = worst.size() < k ? 0.0 : worst.top().score;
      constexpr std::int64_t kGroup = 64;
      for (std::int64_t g = 0; g < span; g += kGroup) {
        const std::int64_t g1 = std::min(span, g + kGroup);
        // Most groups hold no score above the floor: one compare each, no branch, to see.
        bool any = false;
        for (std::int64_t j = g; j < g1; ++j) any |= score_of[j] > floor;
        if (!any) continue;
        for (std::int64_t j = g; j < g1; ++j) {
          const double score = score_of[j];
          if (!(score > floor)) continue;
          worst.push({score, start + j});
          if (worst.size() > k) worst.pop();
          floor = worst.size() < k ? 0.0 : worst.top().score;
        }
      }
    }
  };
  run_strides(pass, threads);
  std::int64_t finite_count = 0;
  for (const Scan& sc : scans) {
    d.nan_both += sc.nan_both;
    d.nan_mismatches += sc.nan_mismatches;
    d.mismatches += sc.mismatches;
    finite_count += sc.finite_count;
    d.tolerance_ratio = std::max(d.tolerance_ratio, sc.tolerance_ratio);
    d.required_atol = std::max(d.required_atol, sc.required_atol);
    if (sc.max_abs_index >= 0 &&
        (d.max_abs_index < 0 || sc.max_abs > d.max_abs ||
         (sc.max_abs == d.max_abs && sc.max_abs_index < d.max_abs_index))) {
      d.max_abs = sc.max_abs;
      d.max_abs_index = sc.max_abs_index;
    }
    d.max_rel = std::max(d.max_rel, sc.max_rel);
    d.max_abs_reference = std::max(d.max_abs_reference, sc.max_abs_reference);
    d.max_ulp = std::max(d.max_ulp, sc.max_ulp);
    for (std::size_t b = 0; b < d.histogram.size(); ++b) d.histogram[b] += sc.histogram[b];
    for (std::size_t c = 0; c < sc.channels.count.size(); ++c) {
      ChannelError& ce = d.channels[c];
      ce.count += sc.channels.count[c];
      ce.mismatches += sc.channels.mismatches[c];
      ce.max_abs = std::max(ce.max_abs, sc.channels.max_abs[c]);
      ce.max_rel = std::max(ce.max_rel, sc.channels.max_rel[c]);
    }
  }
  if (d.nan_mismatches > 0) {
    d.tolerance_ratio = kInf;
    d.required_atol = kInf;
    d.max_ulp = std::numeric_limits<std::uint64_t>::max();
  }
  d.required_atol = std::max(d.required_atol, 0.0);
  d.mean_abs = finite_count ? pairwise_sum(sum_abs) / static_cast<double>(finite_count) : 0.0;
  for (std::size_t c = 0; c < d.channels.size(); ++c) {
    ChannelError& ce = d.channels[c];
    ce.mean_abs = ce.count ? channel_sums[c] / static_cast<double>(ce.count) : 0.0;
  }
  d.passed = d.mismatches == 0;

  for (; !worst.empty(); worst.pop())
    d.worst.push_back(element_error(d, rt, ct, worst.top().index, view));
  std::reverse(d.worst.begin(), d.worst.end());
  const auto holds_max_ulp = [&](const ElementError& e) { return e.ulp == d.max_ulp; };
  if (k > 0 && d.max_ulp > 0 && std::none_of(d.worst.begin(), d.worst.end(), holds_max_ulp)) {
    const std::int64_t i = first_at_ulp(rt, ct, d.dtype, d.max_ulp);
    if (i >= 0) d.max_ulp_element = element_error(d, rt, ct, i, view);
  }
  return d;
}

ElementError element_error(const OutputDiff& d, const Tensor& reference, const Tensor& candidate,
                           std::int64_t i, const ChannelView* view) {
  ElementError e;
  e.index = i;
  e.coords = unravel(i, d.shape);
  e.channel = channel_of(i, d.shape, d.count, view);
  e.reference = reference.get(i);
  e.candidate = candidate.get(i);
  const bool one_nan = std::isnan(e.reference) != std::isnan(e.candidate);
  e.abs_error =
      one_nan ? kInf : (e.reference == e.candidate ? 0 : std::fabs(e.reference - e.candidate));
  e.rel_error =
      e.abs_error == 0 ? 0 : (e.reference == 0 ? kInf : e.abs_error / std::fabs(e.reference));
  e.ulp = ulp_distance(e.candidate, e.reference, d.dtype);
  e.mismatch =
      one_nan || !(e.abs_error <= d.tolerance.atol + d.tolerance.rtol * std::fabs(e.reference));
  return e;
}

Comparison compare_results(const std::string& reference_name,
                           const std::vector<OutputTensor>& reference,
                           const std::string& candidate_name,
                           const std::vector<OutputTensor>& candidate, const DiffOptions& options,
                           const ChannelView* view) {
  Comparison c;
  c.reference = reference_name;
  c.candidate = candidate_name;
  for (const OutputTensor& out : candidate) {
    auto it = std::find_if(reference.begin(), reference.end(),
                           [&](const OutputTensor& r) { return r.name == out.name; });
    if (it == reference.end()) {
      c.notes.push_back(out.name + ": not in " + reference_name + "; not compared");
      continue;
    }
    c.outputs.push_back(compare_output(*it, out, options, view));
    const OutputDiff& d = c.outputs.back();
    if (!d.passed) c.passed = false;
    // Agreement that reads as a pass but says little: the two sides failed alike.
    if (d.nan_both > 0)
      c.notes.push_back(out.name + ": " + std::to_string(d.nan_both) + " of " +
                        std::to_string(d.count) + " elements NaN in both " + candidate_name +
                        " and " + reference_name + ", counted as agreeing");
  }
  if (c.outputs.empty()) {
    c.notes.push_back("no output in common between " + reference_name + " and " + candidate_name);
    c.passed = false;
  }
  return c;
}

}  // namespace bnscope
