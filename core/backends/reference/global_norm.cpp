// BatchNormWithGlobalNormalization and its Grad (spec 2.2, 3.7): channels last, given
// statistics, gamma used only with scale_after_normalization.

#include <vector>

#include "backends/reference/reference_ops.h"
#include "ops/bn_math.h"

namespace bnscope::reference {

void global_forward(const Prepared& p, Result& result, const RunContext& ctx) {
  const ChannelView& v = p.view;
  const Tensor& t = p.in("t");
  const auto m = p.in("m").to_doubles();
  const auto var = p.in("v").to_doubles();
  const auto beta = p.in("beta").to_doubles();
  const auto gamma = p.in("gamma").to_doubles();
  Tensor& out_t = result.output("result").tensor;
  void* const out_base = out_t.raw();  // once, before the threads: raw() may detach
  const DType out_type = out_t.dtype();
  for_row_ranges(v, ctx, [&](std::int64_t o0, std::int64_t o1) {
    std::vector<double> ts, out;
    for_segments(
        v, o0, o1, 0, v.channels, [&](std::int64_t begin, std::int64_t cb, std::int64_t ce) {
          const std::int64_t n = ce - cb;  // channels last: inner is 1
          ts.resize(uc(n));
          out.resize(uc(n));
          load(t, begin, n, ts.data());
          for (std::int64_t c = cb; c < ce; ++c) {
            const std::size_t cc = uc(c);
            const double scale =
                inv_std(var[cc], p.epsilon) * (p.scale_after_normalization ? gamma[cc] : 1.0);
            const std::size_t j = uc(c - cb);
            out[j] = (ts[j] - m[cc]) * scale + beta[cc];
          }
          store(out_type, out_base, begin, n, out.data());
        });
  });
  end_pass(ctx, 1, 1);
}

void global_grad(const Prepared& p, Result& result, const RunContext& ctx) {
  const ChannelView& v = p.view;
  const std::int64_t C = v.channels;
  const Tensor& t = p.in("t");
  const auto m = p.in("m").to_doubles();
  const auto var = p.in("v").to_doubles();
  const auto gamma = p.in("gamma").to_doubles();
  const Tensor& dy = p.in("backprop");

  // Each channel's sums run over o in order, as one loop over the whole tensor would.
  std::vector<double> db(uc(C), 0.0), s(uc(C), 0.0);
  for_channel_ranges(v, ctx, [&](std::int64_t c0, std::int64_t c1) {
    // The range's sums live apart from the other threads' until the end (no shared cache line).
    std::vector<double> db_r(uc(c1 - c0), 0.0), s_r(db_r.size(), 0.0), ts, dys;
    for_segments(v, c0, c1, [&](std::int64_t begin, std::int64_t cb, std::int64_t ce) {
      const std::int64_t n = ce - cb;  // channels last: inner is 1
      ts.resize(uc(n));
      dys.resize(uc(n));
      prefetch_rows_ahead(v, t, dy, begin, n);
      load(t, begin, n, ts.data());
      load(dy, begin, n, dys.data());
      for (std::int64_t c = cb; c < ce; ++c) {
        const std::size_t j = uc(c - cb);
        db_r[uc(c - c0)] += dys[j];
        s_r[uc(c - c0)] += dys[j] * (ts[j] - m[uc(c)]);
      }
    });
    std::copy(db_r.begin(), db_r.end(), db.begin() + c0);
    std::copy(s_r.begin(), s_r.end(), s.begin() + c0);
  });
  end_pass(ctx, 1, 2);

  std::vector<double> dm(uc(C)), dv(uc(C)), dg(uc(C), 0.0);
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
  Tensor& dx_out = result.output("dx").tensor;
  void* const dx_base = dx_out.raw();  // once, before the threads: raw() may detach
  const DType dx_type = dx_out.dtype();
  for_row_ranges(v, ctx, [&](std::int64_t o0, std::int64_t o1) {
    std::vector<double> dys, dx;
    for_segments(v, o0, o1, 0, v.channels,
                 [&](std::int64_t begin, std::int64_t cb, std::int64_t ce) {
                   const std::int64_t n = ce - cb;
                   dys.resize(uc(n));
                   dx.resize(uc(n));
                   load(dy, begin, n, dys.data());
                   for (std::int64_t c = cb; c < ce; ++c)
                     dx[uc(c - cb)] = dys[uc(c - cb)] * scale[uc(c)];
                   store(dx_type, dx_base, begin, n, dx.data());
                 });
  });
  store(result.output("dm").tensor, dm);
  store(result.output("dv").tensor, dv);
  store(result.output("db").tensor, db);
  store(result.output("dg").tensor, dg);
  end_pass(ctx, 2, 2);
}

}  // namespace bnscope::reference
