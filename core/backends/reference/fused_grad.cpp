// FusedBatchNormGrad/V2/V3 (spec 3.3-3.5): the training formula with k taken from the reserve
// space per the declared convention, and the inference-mode formula with the population variance.

#include "backends/reference/reference_ops.h"
#include "ops/bn_math.h"

namespace bnscope::reference {

void fused_grad(const Prepared& p, Result& result, const RunContext& ctx) {
  const ChannelView& v = p.view;
  const std::int64_t C = v.channels;
  const auto dy = p.in("y_backprop").to_doubles();
  const auto x = p.in("x").to_doubles();
  const auto gamma = p.in("scale").to_doubles();
  const auto mu = p.in("reserve_space_1").to_doubles();
  const auto rs2 = p.in("reserve_space_2").to_doubles();
  const auto uc = [](std::int64_t c) { return static_cast<std::size_t>(c); };

  // Freeze mode reads reserve_space_2 as the population variance on every device.
  std::vector<double> k(uc(C));
  for (std::int64_t c = 0; c < C; ++c)
    k[uc(c)] = p.is_training ? reserve_inv_std(rs2[uc(c)], p.epsilon, p.reserve_is_inv_std())
                             : inv_std(rs2[uc(c)], p.epsilon);

  std::vector<double> sum_dy(uc(C), 0.0), sum_dy_xc(uc(C), 0.0);
  for (std::int64_t o = 0; o < v.outer; ++o)
    for (std::int64_t c = 0; c < C; ++c)
      for (std::int64_t i = 0; i < v.inner; ++i) {
        const auto j = static_cast<std::size_t>(v.index(o, c, i));
        sum_dy[uc(c)] += dy[j];
        sum_dy_xc[uc(c)] += dy[j] * (x[j] - mu[uc(c)]);
      }
  end_pass(ctx, 1, 2);

  const double m = static_cast<double>(v.per_channel());
  std::vector<double> dx(x.size());
  for (std::int64_t o = 0; o < v.outer; ++o)
    for (std::int64_t c = 0; c < C; ++c) {
      const std::size_t cc = uc(c);
      const double gk = gamma[cc] * k[cc];
      for (std::int64_t i = 0; i < v.inner; ++i) {
        const auto j = static_cast<std::size_t>(v.index(o, c, i));
        dx[j] = p.is_training ? gk * (dy[j] - sum_dy[cc] / m -
                                      (x[j] - mu[cc]) * k[cc] * k[cc] * sum_dy_xc[cc] / m)
                              : gk * dy[j];
      }
    }
  std::vector<double> dscale(uc(C));
  for (std::int64_t c = 0; c < C; ++c) dscale[uc(c)] = k[uc(c)] * sum_dy_xc[uc(c)];
  store(result.output("x_backprop").tensor, dx);
  store(result.outputs[1].tensor, dscale);
  store(result.outputs[2].tensor, sum_dy);
  end_pass(ctx, 2, 2);
}

}  // namespace bnscope::reference
