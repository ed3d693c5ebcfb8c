#pragma once
// The changes the catalog's fixes make to a problem, one per row that has a fix.

#include "analysis/causes/catalog.h"

namespace bnscope::causes {

void fix_convention(Problem&, const OpSpec&, const FixStep&, const std::vector<std::int64_t>&);
void fix_inverse_variance(Problem&, const OpSpec&, const FixStep&,
                          const std::vector<std::int64_t>&);
void fix_layout(Problem&, const OpSpec&, const FixStep&, const std::vector<std::int64_t>&);
void fix_epsilon(Problem&, const OpSpec&, const FixStep&, const std::vector<std::int64_t>&);
void fix_epsilon_clamped(Problem&, const OpSpec&, const FixStep&, const std::vector<std::int64_t>&);
void fix_widen(Problem&, const OpSpec&, const FixStep&, const std::vector<std::int64_t>&);
void fix_bessel(Problem&, const OpSpec&, const FixStep&, const std::vector<std::int64_t>&);
void fix_batch_statistics(Problem&, const OpSpec&, const FixStep&,
                          const std::vector<std::int64_t>&);
void fix_avg_factor(Problem&, const OpSpec&, const FixStep&, const std::vector<std::int64_t>&);
void fix_mode(Problem&, const OpSpec&, const FixStep&, const std::vector<std::int64_t>&);
void fix_scale_missing(Problem&, const OpSpec&, const FixStep&, const std::vector<std::int64_t>&);
void fix_scale_ignored(Problem&, const OpSpec&, const FixStep&, const std::vector<std::int64_t>&);
void fix_precision(Problem&, const OpSpec&, const FixStep&, const std::vector<std::int64_t>&);
// t times k in a tensor of its own (in float64, rounded once to t's dtype), t left as it is.
Tensor scaled_by(const Tensor& t, double k);
void fix_gradient_scale(Problem&, const OpSpec&, const FixStep&, const std::vector<std::int64_t>&);
void fix_permutation(Problem&, const OpSpec&, const FixStep&, const std::vector<std::int64_t>&);

// The per-channel statistics the problem's data has: mean and biased variance of each channel.
struct BatchMoments {
  std::vector<double> mean, variance;
};
BatchMoments batch_moments(const Problem& p, const OpSpec& op);

}  // namespace bnscope::causes
