// BatchNormWithGlobalNormalization and its Grad (spec 2.2, 3.7): channels last, given
// statistics, gamma used only with scale_after_normalization.

#include "backends/reference/reference_ops.h"
#include "ops/bn_math.h"

namespace bnscope::reference {

namespace {

std::size_t uc(std::int64_t c) {
  return static_cast<std::size_t>(c);
}

}  // namespace

void global_forward(const Prepared& p, Result& result, const RunContext& ctx) {
  const ChannelView& v = p.view;
  const auto t = p.in("t").to_doubles();
  const auto m = p.in("m").to_doubles();
  const auto var = p.in("v").to_doubles();
  const auto beta = p.in("beta").to_doubles();
  const auto gamma = p.in("gamma").to_doubles();
  std::vector<double> out(t.size());
  for (std::int64_t o = 0; o < v.outer; ++o)
    for (std::int64_t c = 0; c < v.channels; ++c) {
      const std::size_t cc = uc(c);
      const double scale =
          inv_std(var[cc], p.epsilon) * (p.scale_after_normalization ? gamma[cc] : 1.0);
      const std::size_t j = uc(v.index(o, c, 0));
      out[j] = (t[j] - m[cc]) * scale + beta[cc];
    }
  store(result.output("result").tensor, out);
  end_pass(ctx, 1, 1);
}

void global_grad(const Prepared& p, Result& result, const RunContext& ctx) {
  const ChannelView& v = p.view;
  const std::int64_t C = v.channels;
  const auto t = p.in("t").to_doubles();
  const auto m = p.in("m").to_doubles();
  const auto var = p.in("v").to_doubles();
  const auto gamma = p.in("gamma").to_doubles();
  const auto dy = p.in("backprop").to_doubles();

  std::vector<double> db(uc(C), 0.0), s(uc(C), 0.0);
  for (std::int64_t o = 0; o < v.outer; ++o)
    for (std::int64_t c = 0; c < C; ++c) {
      const std::size_t j = uc(v.index(o, c, 0));
      db[uc(c)] += dy[j];
      s[uc(c)] += dy[j] * (t[j] - m[uc(c)]);
    }
  end_pass(ctx, 1, 2);

  std::vector<double> dx(t.size()), dm(uc(C)), dv(uc(C)), dg(uc(C), 0.0);
  std::vector<double> scale(uc(C));
  for (std::int64_t c = 0; c < C; ++c) {
    const std::size_t cc = uc(c);
    const double k = inv_std(var[cc], p.epsilon);
    const double g = p.scale_after_normalization ? gamma[cc] : 1.0;
    scale[cc] = g * k;
    dm[cc] = -db[cc] * g * k;
    dv[cc] = -0.5 * g * s[cc] * k * k * k;
    if (p.scale_after_normalization) dg[cc] = s[cc] * k;
  }
  for (std::int64_t o = 0; o < v.outer; ++o)
    for (std::int64_t c = 0; c < C; ++c) {
      const std::size_t j = uc(v.index(o, c, 0));
      dx[j] = dy[j] * scale[uc(c)];
    }
  store(result.output("dx").tensor, dx);
  store(result.output("dm").tensor, dm);
  store(result.output("dv").tensor, dv);
  store(result.output("db").tensor, db);
  store(result.output("dg").tensor, dg);
  end_pass(ctx, 2, 2);
}

}  // namespace bnscope::reference
