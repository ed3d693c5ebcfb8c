// Epilogues of the forward ops (spec 2.1, 2.2). Training statistics take two reduce passes
// (Σx, then Σ(x-mean) and Σ(x-mean)² around the float mean, which keeps the variance accurate
// when |mean| >> std) and one write pass; inference and the global forward are one write pass.

#include <cmath>

#include "backends/cpu/passes.h"

namespace bnscope::cpu {

namespace {

// y = (x - mean)·γk + β with the mean split into its A-rounded part (in the loop) and the rest
// (folded into r), so rounding the mean to float costs nothing. The rest is dropped where it is
// zero or meaningless (non-finite mean or γk), so an Inf never meets a 0 or an opposite Inf in r.
template <class A>
Affine<A> normalize(const std::vector<double>& gk, const std::vector<double>& mean,
                    const std::vector<double>& beta) {
  Affine<A> f;
  f.normalize = true;
  for (std::size_t c = 0; c < gk.size(); ++c) {
    const A m = static_cast<A>(mean[c]);
    const double rest = mean[c] - static_cast<double>(m);
    const bool fold = rest != 0.0 && std::isfinite(rest) && std::isfinite(gk[c]);
    f.p.push_back(A(0));
    f.q.push_back(static_cast<A>(gk[c]));
    f.m.push_back(m);
    f.r.push_back(static_cast<A>(fold ? beta[c] - gk[c] * rest : beta[c]));
  }
  return f;
}

template <class T>
void fused_forward(const Exec& ex, const Prepared& p, Result& result) {
  using A = Acc<T>;
  const Geometry g = make_geometry(p.view);
  const std::size_t C = static_cast<std::size_t>(g.channels);
  const double M = static_cast<double>(g.m);
  const std::vector<double> gamma = p.in("scale").to_doubles();
  const std::vector<double> beta = p.in("offset").to_doubles();
  const T* x = p.in("x").data<T>();
  T* y = result.output("y").tensor.data<T>();
  std::vector<double> mean(C), var(C);
  if (p.is_training) {
    const std::vector<A> zero(C, A(0));
    const Totals sum =
        timed_pass(ex, kPassMean, [&] { return reduce_pass<T>(ex, g, Sum::Moments, x, x, zero); });
    for (std::size_t c = 0; c < C; ++c) mean[c] = sum.s0[c] / M;
    between_passes(ex, 1.0 / 3);
    const std::vector<A> mean_a = narrow<A>(mean);
    const Totals dev = timed_pass(
        ex, kPassVariance, [&] { return reduce_pass<T>(ex, g, Sum::Moments, x, x, mean_a); });
    for (std::size_t c = 0; c < C; ++c) {
      const double d = dev.s0[c] / M;
      // A non-finite mean is already TensorFlow's (Σx/M); refining it would give Inf - Inf.
      if (std::isfinite(static_cast<double>(mean_a[c])))
        mean[c] = static_cast<double>(mean_a[c]) + d;
      // Clamps rounding below zero but keeps a NaN (std::max(0.0, NaN) would give 0).
      const double v = dev.s1[c] / M - d * d;
      var[c] = v < 0.0 ? 0.0 : v;
    }
    between_passes(ex, 2.0 / 3);
  } else {
    mean = p.in("mean").to_doubles();
    var = p.in("variance").to_doubles();
  }
  std::vector<double> gk(C);
  for (std::size_t c = 0; c < C; ++c) gk[c] = gamma[c] / std::sqrt(var[c] + p.epsilon);
  const Affine<A> coefs = normalize<A>(gk, mean, beta);
  timed_pass(ex, kPassWrite, [&] { write_pass<T>(ex, g, x, x, y, coefs); });

  std::vector<double> batch_mean = mean, batch_var = var;
  if (p.is_training) {
    const double bessel = M / std::max(M - 1.0, 1.0);
    const double f = p.exponential_avg_factor;
    std::vector<double> mean_in, var_in;
    if (f != 1.0) {
      mean_in = p.in("mean").to_doubles();
      var_in = p.in("variance").to_doubles();
    }
    for (std::size_t c = 0; c < C; ++c) {
      batch_var[c] = bessel * var[c];
      if (f != 1.0) {
        batch_mean[c] = (1.0 - f) * mean_in[c] + f * mean[c];
        batch_var[c] = (1.0 - f) * var_in[c] + f * batch_var[c];
      }
    }
    result.output("reserve_space_1").tensor.set_doubles(mean);
    // The forward stands in for either producer: cuDNN saves 1/sqrt(var + eps) here.
    std::vector<double> saved = var;
    if (p.convention == ReserveConvention::InvStd)
      simd::rsqrt_plus(var.data(), p.epsilon, saved.data(), static_cast<std::int64_t>(C));
    result.output("reserve_space_2").tensor.set_doubles(saved);
  }
  result.output("batch_mean").tensor.set_doubles(batch_mean);
  result.output("batch_variance").tensor.set_doubles(batch_var);
  if (p.op->output_index("reserve_space_3") >= 0)
    result.output("reserve_space_3").tensor.set(0, 0.0);
}

template <class T>
void global_forward(const Exec& ex, const Prepared& p, Result& result) {
  using A = Acc<T>;
  const Geometry g = make_geometry(p.view);
  const std::vector<double> m = p.in("m").to_doubles();
  const std::vector<double> v = p.in("v").to_doubles();
  const std::vector<double> beta = p.in("beta").to_doubles();
  const std::vector<double> gamma = p.in("gamma").to_doubles();
  std::vector<double> gk(m.size());
  for (std::size_t c = 0; c < m.size(); ++c)
    gk[c] = (p.scale_after_normalization ? gamma[c] : 1.0) / std::sqrt(v[c] + p.epsilon);
  const T* t = p.in("t").data<T>();
  const Affine<A> f = normalize<A>(gk, m, beta);
  T* out = result.output("result").tensor.data<T>();
  timed_pass(ex, kPassWrite, [&] { write_pass<T>(ex, g, t, t, out, f); });
}

}  // namespace

void run_fused_forward(const Exec& ex, const Prepared& p, Result& result) {
  visit_dtype(p.t, [&](auto tag) { fused_forward<typename decltype(tag)::type>(ex, p, result); });
}

void run_global_forward(const Exec& ex, const Prepared& p, Result& result) {
  visit_dtype(p.t, [&](auto tag) { global_forward<typename decltype(tag)::type>(ex, p, result); });
}

}  // namespace bnscope::cpu
