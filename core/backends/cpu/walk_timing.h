#pragma once
// The statistic the walk decisions (row_walk.h, pair_trial.h) compare timings by.

#include <algorithm>
#include <vector>

namespace bnscope::cpu {

// The upper median of a non-empty list of times: robust to the odd preempted run.
inline double median_seconds(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace bnscope::cpu
