#include "analysis/channel_stats.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "ops/sample.h"
#include "problem_controller.h"
#include "tensor/error.h"
#include "tensor/non_finite.h"

namespace bnscope {
namespace {

// x is NHWC [1,1,2,2]: channel 0 holds {1, 3}, channel 1 holds {2, 4}.
Problem tiny_problem(ReserveConvention conv) {
  Problem p;
  p.op = "FusedBatchNormGradV3";
  p.attrs["epsilon"] = 0.5;
  p.convention = conv;
  const double x[] = {1, 2, 3, 4};
  p.inputs["x"] = Tensor::from_doubles(DType::F32, {1, 1, 2, 2}, x);
  p.inputs["y_backprop"] = Tensor::from_doubles(DType::F32, {1, 1, 2, 2}, x);
  const double scale[] = {1, 1}, mean[] = {2, 3}, second[] = {1, 2};
  p.inputs["scale"] = Tensor::from_doubles(DType::F32, {2}, scale);
  p.inputs["reserve_space_1"] = Tensor::from_doubles(DType::F32, {2}, mean);
  p.inputs["reserve_space_2"] = Tensor::from_doubles(DType::F32, {2}, second);
  return p;
}

// A hand-made result: the stats must summarize whatever the backend returned.
Result tiny_result() {
  Result r;
  const double dx[] = {-1, 2, std::numeric_limits<double>::quiet_NaN(), -6};
  r.outputs.push_back({"x_backprop", Tensor::from_doubles(DType::F32, {1, 1, 2, 2}, dx)});
  const double sb[] = {10, 20}, ob[] = {30, 40};
  r.outputs.push_back({"scale_backprop", Tensor::from_doubles(DType::F32, {2}, sb)});
  r.outputs.push_back({"offset_backprop", Tensor::from_doubles(DType::F32, {2}, ob)});
  r.outputs.push_back({"reserve_space_4", Tensor(DType::F32, {0})});
  return r;
}

TEST(ChannelStats, SummarizesOutputsPerChannel) {
  const Prepared p = prepare(tiny_problem(ReserveConvention::Variance));
  const ChannelStats s = channel_stats(p, tiny_result());
  ASSERT_EQ(s.channels, 2);
  EXPECT_EQ(s.column("scale_backprop")->values, (std::vector<double>{10, 20}));
  EXPECT_EQ(s.column("offset_backprop")->values, (std::vector<double>{30, 40}));
  EXPECT_EQ(s.column("reserve_space_4"), nullptr);
  EXPECT_EQ(s.column("mean used")->values, (std::vector<double>{2, 3}));
  EXPECT_EQ(s.column("variance used")->values, (std::vector<double>{1, 2}));
  // channel 0: {-1, NaN}; channel 1: {2, -6}
  EXPECT_EQ(s.column("|x_backprop| min")->values, (std::vector<double>{1, 2}));
  EXPECT_EQ(s.column("|x_backprop| max")->values, (std::vector<double>{1, 6}));
  EXPECT_EQ(s.column("|x_backprop| mean")->values, (std::vector<double>{1, 4}));
  EXPECT_DOUBLE_EQ(s.column("|x_backprop| L2")->values[1], std::sqrt(40.0));
  EXPECT_EQ(s.column("non-finite x_backprop")->values, (std::vector<double>{1, 0}));
  EXPECT_EQ(s.column("non-finite inputs")->values, (std::vector<double>{0, 0}));
}

TEST(ChannelStats, InverseStdConventionGivesTheVarianceBack) {
  const Prepared p = prepare(tiny_problem(ReserveConvention::InvStd));
  const ChannelStats s = channel_stats(p, tiny_result());
  // 1/r^2 - eps with eps = 0.5: r = 1 -> 0.5, r = 2 -> -0.25
  EXPECT_DOUBLE_EQ(s.column("variance used")->values[0], 0.5);
  EXPECT_DOUBLE_EQ(s.column("variance used")->values[1], -0.25);
}

TEST(ChannelStats, ChannelValuesFollowTheLayout) {
  const double v[] = {0, 1, 2, 3, 4, 5};
  const Tensor nchw = Tensor::from_doubles(DType::F32, {1, 2, 1, 3}, v);
  EXPECT_EQ(channel_values(nchw, channel_view(nchw.shape(), false), 1),
            (std::vector<double>{3, 4, 5}));
  const Tensor nhwc = Tensor::from_doubles(DType::F32, {1, 1, 3, 2}, v);
  EXPECT_EQ(channel_values(nhwc, channel_view(nhwc.shape(), true), 1),
            (std::vector<double>{1, 3, 5}));
  EXPECT_TRUE(channel_values(nhwc, channel_view(nhwc.shape(), true), 2).empty());
}

TEST(ChannelStats, HistogramCountsEveryFiniteValueOnce) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Histogram h = histogram({0, 1, 2, 3, 4, nan}, 4);
  EXPECT_EQ(h.lo, 0);
  EXPECT_EQ(h.hi, 4);
  EXPECT_EQ(h.non_finite, 1);
  EXPECT_EQ(h.counts, (std::vector<std::int64_t>{1, 1, 1, 2}));
  const Histogram flat = histogram({5, 5}, 3);
  EXPECT_EQ(flat.counts, (std::vector<std::int64_t>{2, 0, 0}));
}

// The statistics as they were computed before the fused scan: one walk per figure, element by
// element through Tensor::get. The fused, threaded scan must give the same numbers.
struct PerPass {
  std::vector<double> lo, hi, mean, l2, bad_out, bad_in;
};
PerPass per_pass(const Prepared& p, const Tensor& out) {
  const std::int64_t C = p.channels();
  const auto n = static_cast<std::size_t>(C);
  const double inf = std::numeric_limits<double>::infinity();
  PerPass r;
  std::vector<double> lo(n, inf), hi(n, -inf), sum(n, 0.0), sq(n, 0.0), bad(n, 0.0), cnt(n, 0.0);
  const ChannelView& v = p.view;
  for (std::int64_t o = 0; o < v.outer; ++o)
    for (std::int64_t c = 0; c < C; ++c)
      for (std::int64_t i = 0; i < v.inner; ++i) {
        const double x = out.get(v.index(o, c, i));
        const auto k = static_cast<std::size_t>(c);
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
    r.lo.push_back(lo[k]);
    r.hi.push_back(hi[k]);
    r.mean.push_back(cnt[k] > 0 ? sum[k] / cnt[k] : nan);
    r.l2.push_back(std::sqrt(sq[k]));
    r.bad_out.push_back(bad[k]);
  }
  r.bad_in.assign(n, 0.0);
  const Tensor& x = p.in(p.op->data_input());
  for (const Tensor& t : p.inputs) {
    if (!same_shape(t, x)) continue;
    for (std::int64_t c = 0; c < C; ++c)
      for (double val : channel_values(t, v, c))
        if (!std::isfinite(val)) r.bad_in[static_cast<std::size_t>(c)] += 1;
  }
  return r;
}

// What the input table showed, computed on the spot: the range and mean of the finite values.
TensorSummary per_pass_summary(const Tensor& t) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo, sum = 0;
  std::int64_t finite = 0;
  for (std::int64_t i = 0; i < t.numel(); ++i) {
    const double v = t.get(i);
    if (!std::isfinite(v)) continue;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    sum += v;
    ++finite;
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();
  return {finite ? lo : nan, finite ? hi : nan, finite ? sum / static_cast<double>(finite) : nan,
          count_non_finite(t)};
}

void expect_same(double got, double want, const std::string& what) {
  if (std::isnan(want)) {
    EXPECT_TRUE(std::isnan(got)) << what;
    return;
  }
  EXPECT_NEAR(got, want, 1e-12 * std::max(1.0, std::fabs(want))) << what;
}

struct ScanCase {
  DataFormat format;
  DType dtype;
  int threads;
};

class FusedScan : public ::testing::TestWithParam<ScanCase> {};

// Big enough for several 64 K blocks, with channel counts and planes that do not divide them, so
// blocks start inside rows and lanes leave tails; NaN, +Inf and -Inf planted in every x-shaped
// tensor, and one channel with no finite value at all.
Problem scan_problem(const ScanCase& sc) {
  SampleSpec spec;
  spec.shape = {5, 37, 41, 19};
  spec.format = sc.format;
  spec.dtype = sc.dtype;
  spec.seed = 7;
  Problem p = random_problem(spec);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  Tensor& x = p.inputs.at("x");
  Tensor& dy = p.inputs.at("y_backprop");
  const std::int64_t n = x.numel();
  for (std::int64_t i : {std::int64_t{0}, std::int64_t{65535}, std::int64_t{65536}, n / 3, n - 1})
    x.set(i, nan);
  for (std::int64_t i : {std::int64_t{3}, std::int64_t{70001}, n - 2}) dy.set(i, inf);
  dy.set(12345, -inf);
  // Channel 1 in either layout: element 1 channels last, element H*W channels first.
  x.set(1, -inf);
  x.set(37 * 41, nan);
  return p;
}

TEST_P(FusedScan, EqualsThePerPassStatistics) {
  const ScanCase sc = GetParam();
  const Problem problem = scan_problem(sc);
  const Prepared p = prepare(problem);
  Result r = run_prepared(p, backend_or_throw("cpu-reference"));
  // The data gradient with non-finite values, and channel 2 with none finite.
  Tensor& dx = const_cast<Tensor&>(data_output(p, r)->tensor);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  dx.set(5, nan);
  dx.set(dx.numel() / 2, std::numeric_limits<double>::infinity());
  for (std::int64_t o = 0; o < p.view.outer; ++o)
    for (std::int64_t i = 0; i < p.view.inner; ++i) dx.set(p.view.index(o, 2, i), nan);

  ScanControl ctl;
  ctl.threads = sc.threads;
  const ChannelStats s = channel_stats(problem, p, r, ctl);
  const PerPass want = per_pass(p, dx);
  const std::string name = data_output(p, r)->name;
  const auto col = [&](const std::string& c) {
    const ChannelColumn* k = s.column(c);
    EXPECT_NE(k, nullptr) << c;
    return k ? k->values : std::vector<double>{};
  };
  const std::vector<double> lo = col("|" + name + "| min"), hi = col("|" + name + "| max"),
                            mean = col("|" + name + "| mean"), l2 = col("|" + name + "| L2"),
                            bad = col("non-finite " + name), bad_in = col("non-finite inputs");
  ASSERT_EQ(lo.size(), want.lo.size());
  EXPECT_TRUE(std::isnan(lo[2]));
  EXPECT_EQ(bad[2], static_cast<double>(p.per_channel()));
  for (std::size_t k = 0; k < want.lo.size(); ++k) {
    const std::string at = " channel " + std::to_string(k);
    expect_same(lo[k], want.lo[k], "min" + at);
    expect_same(hi[k], want.hi[k], "max" + at);
    expect_same(mean[k], want.mean[k], "mean" + at);
    expect_same(l2[k], want.l2[k], "L2" + at);
    EXPECT_EQ(bad[k], want.bad_out[k]) << at;
    EXPECT_EQ(bad_in[k], want.bad_in[k]) << at;
  }
  double planted = 0;
  for (double b : bad_in) planted += b;
  EXPECT_EQ(planted, 11);
  // The input table's figures, from the same scans.
  ASSERT_EQ(s.inputs.size(), problem.inputs.size());
  for (const InputSummary& in : s.inputs) {
    const Tensor& t = problem.inputs.at(in.name);
    EXPECT_TRUE(in.tensor.shares_storage_with(t)) << in.name;
    const TensorSummary w = per_pass_summary(t);
    expect_same(in.summary.min, w.min, in.name + " min");
    expect_same(in.summary.max, w.max, in.name + " max");
    expect_same(in.summary.mean, w.mean, in.name + " mean");
    EXPECT_EQ(in.summary.non_finite, w.non_finite) << in.name;
  }
  // A channel's histogram read in place, with or without the scan's range, is the one of its
  // values.
  for (std::int64_t c : {std::int64_t{0}, std::int64_t{2}, p.channels() - 1}) {
    const Histogram want_h = histogram(channel_values(dx, p.view, c), 24);
    for (const ChannelScan* scan : {&s.data_output, static_cast<const ChannelScan*>(nullptr)}) {
      const Histogram got = channel_histogram(dx, p.view, c, 24, scan);
      EXPECT_EQ(got.counts, want_h.counts) << "channel " << c;
      EXPECT_EQ(got.non_finite, want_h.non_finite);
      if (want_h.non_finite < p.per_channel()) {
        EXPECT_EQ(got.lo, want_h.lo);
        EXPECT_EQ(got.hi, want_h.hi);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Layouts, FusedScan,
                         ::testing::Values(ScanCase{DataFormat::NHWC, DType::F32, 3},
                                           ScanCase{DataFormat::NCHW, DType::F32, 2},
                                           ScanCase{DataFormat::NHWC, DType::F16, 1},
                                           ScanCase{DataFormat::NCHW, DType::F64, 3}),
                         // A name from the fields: the struct's padding bytes would make the
                         // printed name differ between the listing and the run.
                         [](const ::testing::TestParamInfo<ScanCase>& i) {
                           return std::string(data_format_name(i.param.format)) + "_" +
                                  std::string(dtype_name(i.param.dtype)) + "_" +
                                  std::to_string(i.param.threads) + "threads";
                         });

TEST(ChannelScanControl, ACancelledScanStopsAtTheNextBlock) {
  const Tensor t(DType::F32, {4, 64, 64, 64});  // 1 M values: 16 blocks
  const ChannelView v = channel_view(t.shape(), true);
  std::atomic<std::int64_t> blocks{0};
  ScanControl all;
  all.threads = 2;
  all.blocks_read = &blocks;
  scan_channels(t, v, all);
  EXPECT_EQ(blocks.load(), 16);

  std::atomic<bool> cancel{true};
  std::atomic<std::int64_t> read{0};
  ScanControl stop = all;
  stop.cancel = &cancel;
  stop.blocks_read = &read;
  try {
    scan_channels(t, v, stop);
    ADD_FAILURE() << "a cancelled scan returned";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Cancelled);
  }
  EXPECT_EQ(read.load(), 0);
}

TEST(ChannelScanControl, TheNextRunReadsOnlyWhatChanged) {
  SampleSpec spec;
  spec.shape = {2, 64, 64, 32};  // 256 K values per x-shaped tensor: 4 blocks each
  const Problem problem = random_problem(spec);
  const Prepared p = prepare(problem);
  const Result r = run_prepared(p, backend_or_throw("cpu"));
  std::atomic<std::int64_t> first{0}, second{0};
  ScanControl ctl;
  ctl.blocks_read = &first;
  const ChannelStats before = channel_stats(problem, p, r, ctl);
  ctl.blocks_read = &second;
  const ChannelStats again = channel_stats(problem, p, r, ctl, &before);
  // x, y_backprop and the per-channel inputs were read once, by the first run; the second
  // reads the output only.
  EXPECT_GE(first.load(), 12);
  EXPECT_EQ(second.load(), 4);
  ASSERT_EQ(again.inputs.size(), before.inputs.size());
  for (std::size_t i = 0; i < again.inputs.size(); ++i)
    EXPECT_EQ(again.inputs[i].scan.sum, before.inputs[i].scan.sum) << again.inputs[i].name;
}

// The app's run takes the data output's NaN/Inf count from its own per-channel scan of it (one
// pass for both): the counts, the notes and the scan are those of the engine's own count and a
// separate scan.
TEST(ChannelStats, TheRunsScanGivesTheSameNanInfCountsAndStats) {
  SampleSpec spec;
  spec.shape = {2, 16, 16, 8};
  Problem problem = random_problem(spec);
  {
    Tensor& dy = problem.inputs.at("y_backprop");
    std::vector<double> v = dy.to_doubles();
    v[3] = std::numeric_limits<double>::infinity();  // channel 3 of x_backprop turns NaN
    v[v.size() - 1] = std::numeric_limits<double>::quiet_NaN();
    dy.set_doubles(v);
  }
  const Result plain = run_problem(problem, "cpu");
  const auto out = compute_outcome(problem, "cpu", RunContext{});
  ASSERT_TRUE(out->ok()) << out->error;
  const Result& r = *out->result;
  ASSERT_EQ(r.outputs.size(), plain.outputs.size());
  std::int64_t bad = 0;
  for (std::size_t i = 0; i < r.outputs.size(); ++i) {
    EXPECT_EQ(r.outputs[i].non_finite, plain.outputs[i].non_finite) << r.outputs[i].name;
    if (r.outputs[i].defined) {
      EXPECT_EQ(r.outputs[i].non_finite, count_non_finite(r.outputs[i].tensor))
          << r.outputs[i].name;
    }
    bad += r.outputs[i].non_finite;
  }
  EXPECT_GT(bad, 0);
  ASSERT_EQ(r.notes.size(), plain.notes.size());
  for (std::size_t i = 0; i < r.notes.size(); ++i) {
    EXPECT_EQ(r.notes[i].code, plain.notes[i].code);
    EXPECT_EQ(r.notes[i].message, plain.notes[i].message);
  }
  const OutputTensor* d = data_output(*out->prepared, r);
  ASSERT_NE(d, nullptr);
  const ChannelScan alone = scan_channels(d->tensor, out->prepared->view);
  const auto same_bits = [](const std::vector<double>& a, const std::vector<double>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
  };
  const ChannelScan& got = out->stats.data_output;
  EXPECT_TRUE(same_bits(got.sum, alone.sum));
  EXPECT_TRUE(same_bits(got.min, alone.min));
  EXPECT_TRUE(same_bits(got.max, alone.max));
  EXPECT_TRUE(same_bits(got.sq_sum, alone.sq_sum));
  EXPECT_EQ(got.non_finite, alone.non_finite);
  EXPECT_EQ(got.finite, alone.finite);
}

}  // namespace
}  // namespace bnscope
