// BatchNormWithGlobalNormalizationGrad in half, as TensorFlow's CPU kernel computes it: its
// functor is templated on T alone, so every Eigen operation, each step of the sums over the rows
// included, rounds to half, and the sums (sequential per channel) overflow to +-inf past 65504
// where dm and dv would fit. Built with -ffp-contract=off (deps.cmake): a fused multiply-add
// would skip the rounding of a product.

#include <algorithm>
#include <cmath>
#include <vector>

#include "backends/cpu/passes.h"
#include "backends/cpu/simd.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/cpu/simd_global_half.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "backends/cpu/simd_vectors-inl.h"

HWY_BEFORE_NAMESPACE();
namespace bnscope::cpu::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Row by row, each row's channels [c0, c1) in vectors: the sums stay one chain per channel in
// row order, as TensorFlow adds them, and the vectors run independent channels side by side. The
// last channels, short of a vector, then run down all rows as one vector whose sums stay in
// registers (reading past them into the next row, whose lanes are dropped): a handful of channels
// (C = 3) is otherwise one long dependent chain through memory per row. The [C] arrays are
// padded for that vector (run_global_grad_half below).
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
void GlobalHalfRows(const HalfRows& h, std::int64_t c0, std::int64_t c1) {
  const DF d;
  const std::int64_t N = static_cast<std::int64_t>(hn::Lanes(d));
  // Locals: the sums' stores could alias h, whose fields would then be reloaded every vector.
  // The running sums in this thread's own memory: stored every row, they would share cache lines
  // with the next thread's channels in h.db and h.s2.
  const std::int64_t width = c1 - c0 + N;  // room for the last vector past c1
  LineVector<float> sums(static_cast<std::size_t>(2 * width));
  std::copy_n(h.db + c0, c1 - c0, sums.begin());
  std::copy_n(h.s2 + c0, c1 - c0, sums.begin() + width);
  const f16* HWY_RESTRICT x = h.x;
  const f16* HWY_RESTRICT dy = h.dy;
  f16* HWY_RESTRICT dx = h.dx;
  const float* HWY_RESTRICT mean = h.mean;
  const float* HWY_RESTRICT gk = h.gk;
  float* HWY_RESTRICT db = sums.data() - c0;  // indexed by channel, as h.db
  float* HWY_RESTRICT s2 = db + width;
  const std::int64_t C = h.channels, rows = h.rows;
  const bool nt = h.nt;
  const std::int64_t vend = c0 + (c1 - c0) / N * N, rest = c1 - vend;
  // One vector of one row: the sums in and out through sum_db/sum_s2.
  const auto step = [&](VF xv, VF g, VF m, VF& sum_db, VF& sum_s2) {
    const VF dev = half_round(hn::Sub(xv, m));
    sum_s2 = half_round(hn::Add(sum_s2, half_round(hn::Mul(g, dev))));
    sum_db = half_round(hn::Add(sum_db, g));
  };
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::int64_t at = r * C;
    for (std::int64_t c = c0; c < vend; c += N) {
      const VF g = load_vec(d, dy + at + c);
      VF sum_db = hn::LoadU(d, db + c), sum_s2 = hn::LoadU(d, s2 + c);
      step(load_vec(d, x + at + c), g, hn::LoadU(d, mean + c), sum_db, sum_s2);
      hn::StoreU(sum_db, d, db + c);
      hn::StoreU(sum_s2, d, s2 + c);
      store_vec(hn::Mul(g, hn::LoadU(d, gk + c)), dx + at + c, nt);
    }
  }
  const auto write_back = [&] {
    std::copy_n(db + c0, c1 - c0, h.db + c0);
    std::copy_n(s2 + c0, c1 - c0, h.s2 + c0);
  };
  if (rest == 0) return write_back();
  const VF m = hn::LoadU(d, mean + vend), k = hn::LoadU(d, gk + vend);
  VF sum_db = hn::LoadU(d, db + vend), sum_s2 = hn::LoadU(d, s2 + vend);
  f16 xt[16] = {}, gt[16] = {}, ot[16];
  for (std::int64_t r = 0, at = vend; r < rows; ++r, at += C) {
    const bool inside = at + N <= rows * C;  // the last row's vector would pass the end
    if (!inside) {
      std::copy_n(x + at, rest, xt);
      std::copy_n(dy + at, rest, gt);
    }
    const VF g = load_vec(d, inside ? dy + at : gt);
    step(load_vec(d, inside ? x + at : xt), g, m, sum_db, sum_s2);
    store_vec(hn::Mul(g, k), ot, false);
    std::copy_n(ot, rest, dx + at);
  }
  hn::StoreU(sum_db, d, db + vend);
  hn::StoreU(sum_s2, d, s2 + vend);
  write_back();
}
#else
// Targets without F16C: the rounding in convert.h's scalar form, channel by channel.
void GlobalHalfRows(const HalfRows& h, std::int64_t c0, std::int64_t c1) {
  const auto round = [](float v) { return load(store<f16>(v)); };
  for (std::int64_t r = 0; r < h.rows; ++r)
    for (std::int64_t c = c0, at = r * h.channels; c < c1; ++c) {
      const float g = load(h.dy[at + c]);
      h.db[c] = round(h.db[c] + g);
      h.s2[c] = round(h.s2[c] + round(g * round(load(h.x[at + c]) - h.mean[c])));
      h.dx[at + c] = store<f16>(g * h.gk[c]);
    }
}
#endif

}  // namespace HWY_NAMESPACE
}  // namespace bnscope::cpu::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace bnscope::cpu::simd {

HWY_EXPORT(GlobalHalfRows);

void global_half_rows(const HalfRows& h, std::int64_t c0, std::int64_t c1) {
  HWY_DYNAMIC_DISPATCH(GlobalHalfRows)(h, c0, c1);
}

}  // namespace bnscope::cpu::simd

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
#endif
