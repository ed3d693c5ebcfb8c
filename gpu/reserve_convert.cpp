#include "reserve_convert.h"

#include <cmath>
#include <limits>

namespace bnscope::gpu {

std::vector<double> variance_to_inv_std(const std::vector<double>& variance, double epsilon) {
  std::vector<double> r(variance.size());
  for (std::size_t i = 0; i < r.size(); ++i) r[i] = 1.0 / std::sqrt(variance[i] + epsilon);
  return r;
}

std::vector<double> inv_std_to_variance(const std::vector<double>& inv_std, double epsilon) {
  std::vector<double> v(inv_std.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    const double r = inv_std[i];
    v[i] = r != 0 && std::isfinite(r) ? 1.0 / (r * r) - epsilon
                                      : std::numeric_limits<double>::quiet_NaN();
  }
  return v;
}

std::vector<double> saved_inv_std(const Prepared& p) {
  std::vector<double> rs2 = p.in("reserve_space_2").to_doubles();
  if (p.reserve_is_inv_std()) return rs2;
  return variance_to_inv_std(rs2, p.epsilon);
}

}  // namespace bnscope::gpu
