// FusedBatchNormGrad/V2/V3 (spec 3.3-3.5): the training formula with k taken from the reserve
// space per the declared convention, and the inference-mode formula with the population variance.

#include <vector>

#include "backends/reference/grad_channels_last.h"
#include "backends/reference/reference_ops.h"
#include "ops/bn_math.h"

namespace bnscope::reference {

void fused_grad(const Prepared& p, Result& result, const RunContext& ctx) {
  const ChannelView& v = p.view;
  const std::int64_t C = v.channels;
  const Tensor& dy = p.in("y_backprop");
  const Tensor& x = p.in("x");
  const auto gamma = p.in("scale").to_doubles();
  const auto mu = p.in("reserve_space_1").to_doubles();
  const auto rs2 = p.in("reserve_space_2").to_doubles();
  const auto uc = [](std::int64_t c) { return static_cast<std::size_t>(c); };

  // Freeze mode reads reserve_space_2 as the population variance on every device.
  std::vector<double> k(uc(C));
  for (std::int64_t c = 0; c < C; ++c)
    k[uc(c)] = p.is_training ? reserve_inv_std(rs2[uc(c)], p.epsilon, p.reserve_is_inv_std())
                             : inv_std(rs2[uc(c)], p.epsilon);

  Tensor& dx_out = result.output("x_backprop").tensor;
  // Channels-last float32 or float64 data (ResNet's layers): the same loops in vectors, read and
  // written in place (grad_channels_last.h).
  const DType t = x.dtype();
  const bool vector_rows = v.inner == 1 && (t == DType::F32 || t == DType::F64) &&
                           dy.dtype() == t && dx_out.dtype() == t;

  // Each channel's sums run over (o, i) in order, as one loop over the whole tensor would.
  std::vector<double> sum_dy(uc(C), 0.0), sum_dy_xc(uc(C), 0.0);
  // A thread's channel range is a piece of every row; a piece under a page costs the bandwidth
  // of the whole row (the prefetchers bring the lines beside it), so two threads on halves of
  // 1 KB rows took as long as one thread on whole rows, at twice the CPU. Narrow rows are summed
  // on one thread (the same bits on any count).
  constexpr std::int64_t kPageBytes = 4096;
  RunContext sums_ctx = ctx;
  if (vector_rows && C * static_cast<std::int64_t>(dtype_size(t)) < 2 * kPageBytes)
    sums_ctx.threads = 1;
  for_channel_ranges(v, sums_ctx, [&](std::int64_t c0, std::int64_t c1) {
    // The range's sums live apart from the other threads' until the end (no shared cache line).
    std::vector<double> sd(uc(c1 - c0), 0.0), sdx(sd.size(), 0.0), xs, dys;
    if (vector_rows) {
      if (t == DType::F32)
        grad_sums_channels_last(x.data<float>(), dy.data<float>(), v.outer, C, c0, c1, mu.data(),
                                sd.data(), sdx.data());
      else
        grad_sums_channels_last(x.data<double>(), dy.data<double>(), v.outer, C, c0, c1, mu.data(),
                                sd.data(), sdx.data());
      std::copy(sd.begin(), sd.end(), sum_dy.begin() + c0);
      std::copy(sdx.begin(), sdx.end(), sum_dy_xc.begin() + c0);
      return;
    }
    for_segments(v, c0, c1, [&](std::int64_t begin, std::int64_t cb, std::int64_t ce) {
      const std::int64_t n = (ce - cb) * v.inner;
      xs.resize(uc(n));
      dys.resize(uc(n));
      prefetch_rows_ahead(v, x, dy, begin, n);
      load(x, begin, n, xs.data());
      load(dy, begin, n, dys.data());
      double* const a = sd.data() + (cb - c0);
      double* const b = sdx.data() + (cb - c0);
      const double* const mc = mu.data() + cb;
      if (v.inner == 1) {  // channels last: one element per channel, a loop the compiler widens
        for (std::size_t j = 0; j < uc(ce - cb); ++j) {
          a[j] += dys[j];
          b[j] += dys[j] * (xs[j] - mc[j]);
        }
        return;
      }
      for (std::int64_t c = 0; c < ce - cb; ++c)
        for (std::int64_t i = 0; i < v.inner; ++i) {
          const auto j = uc(c * v.inner + i);
          a[c] += dys[j];
          b[c] += dys[j] * (xs[j] - mc[c]);
        }
    });
    std::copy(sd.begin(), sd.end(), sum_dy.begin() + c0);
    std::copy(sdx.begin(), sdx.end(), sum_dy_xc.begin() + c0);
  });
  end_pass(ctx, 1, 2);

  const double m = static_cast<double>(v.per_channel());
  // Per-channel factors of the formula below, each the very operation it stands for there.
  std::vector<double> gk(uc(C)), mean_dy(uc(C));
  for (std::int64_t c = 0; c < C; ++c) {
    gk[uc(c)] = gamma[uc(c)] * k[uc(c)];
    mean_dy[uc(c)] = sum_dy[uc(c)] / m;
  }
  void* const dx_base = dx_out.raw();  // once, before the threads: raw() may detach
  const DType dx_type = dx_out.dtype();
  const GradFactors factors{gk.data(), mean_dy.data(), mu.data(), k.data(), sum_dy_xc.data(),
                            m,         p.is_training};
  for_row_ranges(v, ctx, [&](std::int64_t o0, std::int64_t o1) {
    if (vector_rows) {
      if (t == DType::F32)
        grad_dx_channels_last(x.data<float>(), dy.data<float>(), static_cast<float*>(dx_base), o0,
                              o1, C, factors);
      else
        grad_dx_channels_last(x.data<double>(), dy.data<double>(), static_cast<double*>(dx_base),
                              o0, o1, C, factors);
      return;
    }
    std::vector<double> xs, dys, dx;
    for_segments(
        v, o0, o1, 0, v.channels, [&](std::int64_t begin, std::int64_t cb, std::int64_t ce) {
          const std::int64_t n = (ce - cb) * v.inner;
          xs.resize(uc(n));
          dys.resize(uc(n));
          dx.resize(uc(n));
          load(x, begin, n, xs.data());
          load(dy, begin, n, dys.data());
          if (v.inner == 1 && p.is_training) {  // channels last: a loop the compiler widens
            for (std::size_t j = 0; j < uc(ce - cb); ++j) {
              const std::size_t cc = uc(cb) + j;
              dx[j] = gk[cc] *
                      (dys[j] - mean_dy[cc] - (xs[j] - mu[cc]) * k[cc] * k[cc] * sum_dy_xc[cc] / m);
            }
          } else {
            for (std::int64_t c = cb; c < ce; ++c) {
              const std::size_t cc = uc(c);
              for (std::int64_t i = 0; i < v.inner; ++i) {
                const auto j = uc((c - cb) * v.inner + i);
                dx[j] = p.is_training
                            ? gk[cc] * (dys[j] - mean_dy[cc] -
                                        (xs[j] - mu[cc]) * k[cc] * k[cc] * sum_dy_xc[cc] / m)
                            : gk[cc] * dys[j];
              }
            }
          }
          store(dx_type, dx_base, begin, n, dx.data());
        });
  });
  std::vector<double> dscale(uc(C));
  for (std::int64_t c = 0; c < C; ++c) dscale[uc(c)] = k[uc(c)] * sum_dy_xc[uc(c)];
  store(result.outputs[1].tensor, dscale);
  store(result.outputs[2].tensor, sum_dy);
  end_pass(ctx, 2, 2);
}

}  // namespace bnscope::reference
