#pragma once
// Per-channel summaries of one run, for the GUI's channel table, charts and input table: the
// per-channel outputs, the statistics the op used, |data gradient| statistics per channel, the
// NaN/Inf counts of the inputs and each input's range.
// Each tensor shaped like x is read once (analysis/channel_scan.h); histograms of one channel
// then need only that channel's range, and inputs already scanned by the previous run (the same
// buffers, seen the same way) are not read again.

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/channel_scan.h"
#include "ops/prepared.h"
#include "ops/result.h"

namespace bnscope {

struct ChannelColumn {
  std::string name;            // "scale_backprop", "mean used", "|x_backprop| max", ...
  std::vector<double> values;  // one per channel
  bool is_count = false;       // an integer count (non-finite values)
};

// A whole tensor: the range and mean of its finite values (NaN when it has none) and how many
// values are NaN or Inf.
struct TensorSummary {
  double min = 0, max = 0, mean = 0;
  std::int64_t non_finite = 0;
};
TensorSummary summarize(const ChannelScan& s);
TensorSummary summarize(const Tensor& t, const ScanControl& ctl = {});

// An input of the problem run, as the views read it. `tensor` shares the problem's storage
// (never a copy): a view holding a newer problem asks shares_storage_with() whether the summary
// is of the buffer it shows.
struct InputSummary {
  std::string name;
  Tensor tensor;
  TensorSummary summary;
  ChannelScan scan;  // per channel, for inputs shaped like x; empty otherwise
};

struct ChannelStats {
  std::int64_t channels = 0;
  std::vector<ChannelColumn> columns;
  std::vector<InputSummary> inputs;  // every input of the problem, in the problem's order
  ChannelScan data_output;           // the output shaped like x; empty when there is none
  const ChannelColumn* column(std::string_view name) const;  // nullptr when absent
  const InputSummary* input(std::string_view name) const;    // nullptr when absent
};

// The output with the shape of x (x_backprop, dx, y, result); nullptr when there is none.
const OutputTensor* data_output(const Prepared& p, const Result& r);

// previous: the stats of an earlier run, whose input scans are reused where the problem still
// holds the same buffers seen through the same view. data_scan: the data output's scan
// (scan_channels with magnitudes through p.view) when the caller has already taken it. Throws
// Error(Cancelled) when ctl's flag is set during a scan.
ChannelStats channel_stats(const Problem& problem, const Prepared& p, const Result& r,
                           const ScanControl& ctl = {}, const ChannelStats* previous = nullptr,
                           const ChannelScan* data_scan = nullptr);
// The input summaries alone (a problem that failed validation still shows its inputs).
std::vector<InputSummary> input_summaries(const Problem& problem, const ScanControl& ctl = {},
                                          const std::vector<InputSummary>* previous = nullptr);
// The stats of the prepared problem alone (its inputs are the problem's).
ChannelStats channel_stats(const Prepared& p, const Result& r, const ScanControl& ctl = {});

// The values of channel c of a tensor laid out like x (view from channel_view).
std::vector<double> channel_values(const Tensor& t, const ChannelView& v, std::int64_t c);

struct Histogram {
  double lo = 0, hi = 0;             // range of the finite values
  std::vector<std::int64_t> counts;  // equal-width bins over [lo, hi]
  std::int64_t non_finite = 0;
};
Histogram histogram(const std::vector<double>& values, int bins);
// Channel c of a tensor laid out like x, read in place; with the channel's scan its range is
// known and the channel is read once.
Histogram channel_histogram(const Tensor& t, const ChannelView& v, std::int64_t c, int bins,
                            const ChannelScan* scan = nullptr);

}  // namespace bnscope
