#include "profile/timing_stats.h"

#include <algorithm>
#include <numeric>
#include <vector>

namespace bnscope {

TimingStats timing_stats(std::span<const double> seconds) {
  TimingStats s;
  if (seconds.empty()) return s;
  std::vector<double> v(seconds.begin(), seconds.end());
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  s.count = static_cast<int>(n);
  s.min = v.front();
  s.max = v.back();
  s.median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  s.mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(n);
  return s;
}

}  // namespace bnscope
