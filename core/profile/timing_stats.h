#pragma once
// Summary of repeated timings. The median is the headline: it ignores the odd preempted run
// that the mean would absorb.

#include <span>

namespace bnscope {

struct TimingStats {
  int count = 0;
  double min = 0;
  double median = 0;  // mean of the two middle samples for an even count
  double max = 0;
  double mean = 0;
};

TimingStats timing_stats(std::span<const double> seconds);

}  // namespace bnscope
