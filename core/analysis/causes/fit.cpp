#include "analysis/causes/fit.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace bnscope::causes {

double minimize_log(const std::function<double(double)>& f, double lo, double hi, int steps) {
  const double g = (std::sqrt(5.0) - 1) / 2;
  double a = std::log(lo), b = std::log(hi);
  double c = b - g * (b - a), d = a + g * (b - a);
  double fc = f(std::exp(c)), fd = f(std::exp(d));
  for (int i = 0; i < steps; ++i) {
    if (fc <= fd) {
      b = d, d = c, fd = fc;
      c = b - g * (b - a);
      fc = f(std::exp(c));
    } else {
      a = c, c = d, fc = fd;
      d = a + g * (b - a);
      fd = f(std::exp(d));
    }
  }
  return std::exp(fc <= fd ? c : d);
}

double least_squares_factor(const std::vector<double>& ref, const std::vector<double>& cand) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < ref.size() && i < cand.size(); ++i) {
    if (!std::isfinite(ref[i]) || !std::isfinite(cand[i])) continue;
    num += ref[i] * cand[i];
    den += cand[i] * cand[i];
  }
  return den > 0 ? num / den : 1.0;
}

double least_squares_factor(const Tensor& ref, const Tensor& cand) {
  double num = 0, den = 0;
  const std::int64_t n = std::min(ref.numel(), cand.numel());
  for (std::int64_t i = 0; i < n; ++i) {
    const double r = ref.get(i), c = cand.get(i);
    if (!std::isfinite(r) || !std::isfinite(c)) continue;
    num += r * c;
    den += c * c;
  }
  return den > 0 ? num / den : 1.0;
}

namespace {
std::vector<double> ranks(const std::vector<double>& v) {
  std::vector<std::size_t> idx(v.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (std::size_t i = 0; i < idx.size();) {  // ties share their mean rank
    std::size_t j = i;
    while (j + 1 < idx.size() && v[idx[j + 1]] == v[idx[i]]) ++j;
    for (std::size_t k = i; k <= j; ++k) r[idx[k]] = (static_cast<double>(i + j)) / 2;
    i = j + 1;
  }
  return r;
}
}  // namespace

double rank_correlation(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> x, y;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i)
    if (std::isfinite(a[i]) && std::isfinite(b[i])) x.push_back(a[i]), y.push_back(b[i]);
  if (x.size() < 3) return 0;
  const std::vector<double> rx = ranks(x), ry = ranks(y);
  const double n = static_cast<double>(rx.size());
  const double mean = (n - 1) / 2;
  double sxy = 0, sxx = 0, syy = 0;
  for (std::size_t i = 0; i < rx.size(); ++i) {
    sxy += (rx[i] - mean) * (ry[i] - mean);
    sxx += (rx[i] - mean) * (rx[i] - mean);
    syy += (ry[i] - mean) * (ry[i] - mean);
  }
  return sxx > 0 && syy > 0 ? sxy / std::sqrt(sxx * syy) : 0;
}

double median(std::vector<double> v) {
  v.erase(std::remove_if(v.begin(), v.end(), [](double d) { return !std::isfinite(d); }), v.end());
  if (v.empty()) return NAN;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

const std::vector<FrameworkEpsilon>& framework_epsilons() {
  static const std::vector<FrameworkEpsilon> table = {
      {1e-3, "Keras' default (BatchNormalization)"},
      {1e-4, "TensorFlow's fused-op default"},
      {1.001e-5, "cuDNN's minimum as TensorFlow clamps it"},
      {1e-5, "PyTorch's default"},
  };
  return table;
}

std::string framework_epsilon_name(double eps) {
  const FrameworkEpsilon* best = nullptr;
  for (const FrameworkEpsilon& f : framework_epsilons())
    if (std::fabs(eps - f.value) <= 0.1 * f.value &&
        (!best || std::fabs(eps - f.value) < std::fabs(eps - best->value)))
      best = &f;
  return best ? best->who : "";
}

std::string power_of_two_text(double k) {
  if (!(k > 0) || !std::isfinite(k)) return "";
  const double e = std::log2(k);
  const double r = std::round(e);
  if (r == 0 || std::fabs(e - r) > std::log2(1.001)) return "";
  return "2^" + std::to_string(static_cast<int>(r));
}

std::string approx_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

}  // namespace bnscope::causes
