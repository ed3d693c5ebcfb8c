// BatchNormWithGlobalNormalizationGrad in half, as TensorFlow's CPU kernel computes it: its
// functor is templated on T alone, so every Eigen operation (each subtraction, product, rsqrt and
// each step of the sums over the rows) rounds to half. The sums over N*H*W rows are sequential
// per channel, as Eigen reduces a preserved inner dimension, so db and the (x - m)*dy sum
// overflow to +-inf past 65504 even where dm and dv themselves would fit.

#include <algorithm>
#include <cmath>

#include "backends/cpu/ops.h"

namespace bnscope::cpu {

namespace {

float h(float v) {
  return half_bits_to_float(float_to_half_bits(v));
}

}  // namespace

void run_global_grad_half(const Exec& ex, const Prepared& p, Result& result) {
  const std::int64_t C = p.channels();
  const std::int64_t rows = C ? p.in("t").numel() / C : 0;
  const f16* x = p.in("t").data<f16>();
  const f16* dy = p.in("backprop").data<f16>();
  const f16* m = p.in("m").data<f16>();
  const f16* v = p.in("v").data<f16>();
  const f16* gamma = p.in("gamma").data<f16>();
  const bool scaled = p.scale_after_normalization;
  const float eps = h(static_cast<float>(p.epsilon));  // the attr, cast to T

  // Padded for the sweep's last vector (simd.h: HalfRows).
  const auto padded = static_cast<std::size_t>((C + 15) / 16 * 16 + 16);
  std::vector<float> s1(static_cast<std::size_t>(C));
  LineVector<float> gk(padded, 0.0f), mean(padded, 0.0f);
  for (std::int64_t c = 0; c < C; ++c) {
    s1[c] = h(1.0f / std::sqrt(h(to_float(v[c]) + eps)));  // scratch1 = rsqrt(v + eps)
    gk[c] = scaled ? h(s1[c] * to_float(gamma[c])) : s1[c];
    mean[c] = to_float(m[c]);
  }
  // db = sum(dy), scratch2 = sum(dy * (x - m)), dx = dy * gk: one sweep, sums in half. Each
  // channel's sums are one chain over the rows, so threads take channel ranges, whole cache lines
  // of a row each (32 halves), never rows.
  std::vector<float> db(s1.size(), 0.0f), s2(s1.size(), 0.0f);
  simd::HalfRows sweep;
  sweep.x = x;
  sweep.dy = dy;
  sweep.dx = result.output("dx").tensor.data<f16>();
  sweep.rows = rows;
  sweep.channels = C;
  sweep.mean = mean.data();
  sweep.gk = gk.data();
  sweep.db = db.data();
  sweep.s2 = s2.data();
  sweep.nt = ex.nt;
  timed_pass(ex, kPassFused, [&] {
    constexpr std::int64_t kLineHalves = 32;
    const std::int64_t units = (C + kLineHalves - 1) / kLineHalves;
    const int n = threads_for(ex, units);
    ex.pool->run(n, [&](int t) {
      const Span span = split_range(units, n, t);
      simd::global_half_rows(sweep, span.begin * kLineHalves, std::min(C, span.end * kLineHalves));
      stream_fence();
    });
  });
  if (ex.ctx && ex.ctx->progress) ex.ctx->progress(1.0);
  std::vector<double> dm(s1.size()), dv(s1.size()), dg(s1.size()), dbd(s1.size());
  for (std::int64_t c = 0; c < C; ++c) {
    dm[c] = h(-db[c] * gk[c]);
    dg[c] = scaled ? h(s2[c] * s1[c]) : 0.0f;
    // scratch1 = scratch1 * scratch1.square() * -0.5
    const float k3 = h(h(s1[c] * h(s1[c] * s1[c])) * -0.5f);
    dv[c] = h(s2[c] * (scaled ? h(k3 * to_float(gamma[c])) : k3));
    dbd[c] = db[c];
  }
  // Exact: every value is a half already.
  result.output("dm").tensor.set_doubles(dm);
  result.output("dv").tensor.set_doubles(dv);
  result.output("db").tensor.set_doubles(dbd);
  result.output("dg").tensor.set_doubles(dg);
}

}  // namespace bnscope::cpu
