// Epilogues of the grad ops (spec 3.3-3.5, 3.7); per-channel arithmetic is in double.

#include "backends/cpu/passes.h"

namespace bnscope::cpu {

namespace {

template <class T>
void fused_grad(const Exec& ex, const Prepared& p, Result& result) {
  using A = Acc<T>;
  const Geometry g = make_geometry(p.view);
  const std::int64_t C = g.channels;
  const double M = static_cast<double>(g.m);
  const std::vector<double> gamma = p.in("scale").to_doubles();
  const std::vector<double> mean = p.in("reserve_space_1").to_doubles();
  const std::vector<double> r2 = p.in("reserve_space_2").to_doubles();
  std::vector<double> k = r2;
  if (!p.reserve_is_inv_std()) simd::rsqrt_plus(r2.data(), p.epsilon, k.data(), C);
  const T* x = p.in("x").data<T>();
  const T* dy = p.in("y_backprop").data<T>();
  Tensor& dx_t = result.output(p.op->outputs[0].name).tensor;
  T* dx = dx_t.data<T>();
  const std::vector<A> mean_a = narrow<A>(mean);
  Totals sums;
  const PassStructure structure = pass_structure(ex.host, p, ex.threads);
  if (structure == PassStructure::Single) {
    std::vector<A> scale(static_cast<std::size_t>(C));
    for (std::int64_t c = 0; c < C; ++c) scale[c] = static_cast<A>(gamma[c] * k[c]);
    sums =
        timed_pass(ex, kPassFused, [&] { return single_pass<T>(ex, g, x, dy, dx, mean_a, scale); });
  } else {
    // dx = γk·((dy - Σdy/M) - (x-μ)·k²Σdy(x-μ)/M) = p·((dy - r) + (x-μ)·q), factored as
    // TensorFlow computes it: expanded into p·dy + ... an Inf γ would give Inf - Inf.
    auto coefs = [&](std::int64_t c, double s0, double s1, double& pc, double& qc, double& rc) {
      pc = gamma[c] * k[c];
      qc = -(k[c] * k[c] * s1 / M);
      rc = s0 / M;
    };
    if (structure == PassStructure::Planes) {
      sums = timed_pass(ex, kPassPlanes,
                        [&] { return planes_pass<T>(ex, g, x, dy, dx, mean_a, coefs); });
    } else {
      sums = timed_pass(ex, kPassReduce,
                        [&] { return reduce_pass<T>(ex, g, Sum::Grad, x, dy, mean_a); });
      between_passes(ex, 0.5);
      // Into arrays sized first, through restrict pointers: the loop vectorizes (it runs on one
      // thread while the others wait).
      Affine<A> f;
      f.m.assign(mean_a.begin(), mean_a.end());
      f.p.resize(static_cast<std::size_t>(C));
      f.q.resize(f.p.size());
      f.r.resize(f.p.size());
      A* __restrict fp = f.p.data();
      A* __restrict fq = f.q.data();
      A* __restrict fr = f.r.data();
      const double* __restrict s0 = sums.s0.data();
      const double* __restrict s1 = sums.s1.data();
      for (std::int64_t c = 0; c < C; ++c) {
        double pc, qc, rc;
        coefs(c, s0[c], s1[c], pc, qc, rc);
        fp[c] = static_cast<A>(pc);
        fq[c] = static_cast<A>(qc);
        fr[c] = static_cast<A>(rc);
      }
      f.nan_free = grad_coefs_nan_free(f, 0, C);
      timed_pass(ex, kPassWrite, [&] { write_pass<T>(ex, g, x, dy, dx, f); });
    }
  }
  if (ex.ctx->progress) ex.ctx->progress(1.0);
  std::vector<double> dscale(static_cast<std::size_t>(C));
  for (std::int64_t c = 0; c < C; ++c) dscale[c] = k[c] * sums.s1[c];
  result.output(p.op->outputs[1].name).tensor.set_doubles(dscale);
  result.output(p.op->outputs[2].name).tensor.set_doubles(sums.s0);
}

template <class T>
void global_grad(const Exec& ex, const Prepared& p, Result& result) {
  using A = Acc<T>;
  const Geometry g = make_geometry(p.view);
  const std::int64_t C = g.channels;
  const std::vector<double> m = p.in("m").to_doubles();
  const std::vector<double> v = p.in("v").to_doubles();
  const std::vector<double> gamma = p.in("gamma").to_doubles();
  std::vector<double> k(static_cast<std::size_t>(C)), gk(k.size());
  std::vector<A> scale(k.size());
  // Locals: the stores below could alias p, which would be re-read every channel.
  const bool scaled = p.scale_after_normalization;
  const double eps = p.epsilon;
  simd::rsqrt_plus(v.data(), eps, k.data(), C);
  for (std::int64_t c = 0; c < C; ++c) {
    gk[c] = scaled ? gamma[c] * k[c] : k[c];
    scale[c] = static_cast<A>(gk[c]);
  }
  const std::vector<A> m_a = narrow<A>(m);
  const Totals sums = timed_pass(ex, kPassFused, [&] {
    return single_pass<T>(ex, g, p.in("t").data<T>(), p.in("backprop").data<T>(),
                          result.output("dx").tensor.data<T>(), m_a, scale);
  });
  if (ex.ctx->progress) ex.ctx->progress(1.0);
  std::vector<double> dm(k.size()), dv(k.size()), dg(k.size());
  for (std::int64_t c = 0; c < C; ++c) {
    const double gam = scaled ? gamma[c] : 1.0;
    dm[c] = -sums.s0[c] * gk[c];
    dv[c] = -0.5 * gam * sums.s1[c] * k[c] * k[c] * k[c];
    dg[c] = scaled ? sums.s1[c] * k[c] : 0.0;
  }
  result.output("dm").tensor.set_doubles(dm);
  result.output("dv").tensor.set_doubles(dv);
  result.output("db").tensor.set_doubles(sums.s0);
  result.output("dg").tensor.set_doubles(dg);
}

}  // namespace

void run_fused_grad(const Exec& ex, const Prepared& p, Result& result) {
  visit_dtype(p.t, [&](auto tag) { fused_grad<typename decltype(tag)::type>(ex, p, result); });
}

void run_global_grad(const Exec& ex, const Prepared& p, Result& result) {
  if (p.t == DType::F16) return run_global_grad_half(ex, p, result);
  visit_dtype(p.t, [&](auto tag) { global_grad<typename decltype(tag)::type>(ex, p, result); });
}

}  // namespace bnscope::cpu
