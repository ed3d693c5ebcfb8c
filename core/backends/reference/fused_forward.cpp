// FusedBatchNorm/V2/V3 forward (spec 2.1): batch statistics in training, the given population
// statistics in inference. Reserve spaces follow the declared convention so the forward can
// stand in for either a CPU or a cuDNN producer.

#include "backends/reference/reference_ops.h"
#include "ops/bn_math.h"
#include "ops/moments.h"

namespace bnscope::reference {

void fused_forward(const Prepared& p, Result& result, const RunContext& ctx) {
  const ChannelView& v = p.view;
  const std::int64_t C = v.channels;
  const Tensor& x = p.in("x");
  const auto gamma = p.in("scale").to_doubles();
  const auto beta = p.in("offset").to_doubles();
  // May be empty in training with f == 1: TensorFlow never reads them then.
  const auto mean_in = p.in("mean").to_doubles();
  const auto var_in = p.in("variance").to_doubles();

  std::vector<double> mean, var;
  if (p.is_training) {
    ChannelMoments m = channel_moments_biased(
        x, p.view, [&](int pass) { end_pass(ctx, pass, 3); }, ctx.threads);
    mean = std::move(m.mean);
    var = std::move(m.biased_variance);
  } else {
    mean = mean_in;
    var = var_in;
  }

  Tensor& y_out = result.output("y").tensor;
  void* const y_base = y_out.raw();  // once, before the threads: raw() may detach
  const DType y_type = y_out.dtype();
  for_row_ranges(v, ctx, [&](std::int64_t o0, std::int64_t o1) {
    std::vector<double> xs, y;
    for_segments(v, o0, o1, 0, v.channels,
                 [&](std::int64_t begin, std::int64_t cb, std::int64_t ce) {
                   const std::int64_t n = (ce - cb) * v.inner;
                   xs.resize(uc(n));
                   y.resize(uc(n));
                   load(x, begin, n, xs.data());
                   for (std::int64_t c = cb; c < ce; ++c) {
                     const double k = inv_std(var[uc(c)], p.epsilon);
                     for (std::int64_t i = 0; i < v.inner; ++i) {
                       const std::size_t j = uc((c - cb) * v.inner + i);
                       y[j] = gamma[uc(c)] * (xs[j] - mean[uc(c)]) * k + beta[uc(c)];
                     }
                   }
                   store(y_type, y_base, begin, n, y.data());
                 });
  });

  if (p.is_training) {
    const double f = p.exponential_avg_factor;
    const double bessel = bessel_factor(v.per_channel());
    std::vector<double> bm(uc(C)), bv(uc(C)), rs2(uc(C));
    for (std::int64_t c = 0; c < C; ++c) {
      const std::size_t cc = uc(c);
      bm[cc] = running_blend(f == 1.0 ? 0.0 : mean_in[cc], mean[cc], f);
      bv[cc] = running_blend(f == 1.0 ? 0.0 : var_in[cc], bessel * var[cc], f);
      rs2[cc] = p.convention == ReserveConvention::InvStd ? inv_std(var[cc], p.epsilon) : var[cc];
    }
    store(result.output("batch_mean").tensor, bm);
    store(result.output("batch_variance").tensor, bv);
    store(result.output("reserve_space_1").tensor, mean);
    store(result.output("reserve_space_2").tensor, rs2);
  } else {
    // Inference copies the inputs; reserve_space_1/2 stay undefined (allocate_outputs).
    store(result.output("batch_mean").tensor, mean_in);
    store(result.output("batch_variance").tensor, var_in);
  }
  if (p.op->version == 3) result.output("reserve_space_3").tensor.set(0, 0.0);
  end_pass(ctx, 3, 3);
}

}  // namespace bnscope::reference
