#pragma once
// Per-channel summaries of one run, for the GUI's channel table and charts: the per-channel
// outputs, the statistics the op used, and |data gradient| statistics per channel.

#include <cstdint>
#include <string>
#include <vector>

#include "engine/result.h"
#include "ops/prepared.h"

namespace bnscope {

struct ChannelColumn {
  std::string name;            // "scale_backprop", "mean used", "|x_backprop| max", ...
  std::vector<double> values;  // one per channel
  bool is_count = false;       // an integer count (non-finite values)
};

struct ChannelStats {
  std::int64_t channels = 0;
  std::vector<ChannelColumn> columns;
  const ChannelColumn* column(std::string_view name) const;  // nullptr when absent
};

// The output with the shape of x (x_backprop, dx, y, result); nullptr when there is none.
const OutputTensor* data_output(const Prepared& p, const Result& r);

ChannelStats channel_stats(const Prepared& p, const Result& r);

// The values of channel c of a tensor laid out like x (view from channel_view).
std::vector<double> channel_values(const Tensor& t, const ChannelView& v, std::int64_t c);

struct Histogram {
  double lo = 0, hi = 0;             // range of the finite values
  std::vector<std::int64_t> counts;  // equal-width bins over [lo, hi]
  std::int64_t non_finite = 0;
};
Histogram histogram(const std::vector<double>& values, int bins);

}  // namespace bnscope
