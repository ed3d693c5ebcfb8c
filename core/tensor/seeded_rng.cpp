#include "tensor/seeded_rng.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace bnscope {

namespace {

[[gnu::always_inline]] inline double bits_to_double(std::uint64_t b) {
  double d;
  std::memcpy(&d, &b, sizeof d);
  return d;
}

[[gnu::always_inline]] inline std::uint64_t double_to_bits(double d) {
  std::uint64_t b;
  std::memcpy(&b, &d, sizeof b);
  return b;
}

// ln(u) for u in [2^-53, 1]: u = m 2^e with m in [sqrt(1/2), sqrt(2)), ln m = 2 atanh(s) with
// s = (m - 1) / (m + 1), |s| < 0.172, whose series to s^19 is exact to double precision.
[[gnu::always_inline]] inline double log_unit(double u) {
  const std::uint64_t b = double_to_bits(u);
  // The exponent through a 2^52 magic number: integer-to-double conversions of 64-bit lanes
  // do not vectorize on x86-64's baseline.
  double e = bits_to_double((b >> 52) | 0x4330000000000000ull) - (0x1.0p52 + 1023);
  double m = bits_to_double((b & 0x000fffffffffffffull) | 0x3ff0000000000000ull);
  const bool high = m > 1.4142135623730951;
  m = high ? m * 0.5 : m;
  e = high ? e + 1.0 : e;
  const double s = (m - 1.0) / (m + 1.0), s2 = s * s;
  double p = 1.0 / 19;
  p = p * s2 + 1.0 / 17;
  p = p * s2 + 1.0 / 15;
  p = p * s2 + 1.0 / 13;
  p = p * s2 + 1.0 / 11;
  p = p * s2 + 1.0 / 9;
  p = p * s2 + 1.0 / 7;
  p = p * s2 + 1.0 / 5;
  p = p * s2 + 1.0 / 3;
  p = p * s2 + 1.0;
  return e * 0.6931471805599453 + 2.0 * s * p;
}

// cos and sin of 2 pi u for u in [0, 1): the nearest quarter turn q, then Taylor polynomials on
// the rest, |theta| <= pi/4, whose first omitted terms are below 5e-17.
[[gnu::always_inline]] inline void sincos_turn(double u, double& c_out, double& s_out) {
  const double t = 4.0 * u;
  const int k = static_cast<int>(t + 0.5);  // t + 0.5 > 0: truncation rounds down
  const double th = (t - static_cast<double>(k)) * 1.5707963267948966, t2 = th * th;
  double s = -1.0 / 1307674368000;
  s = s * t2 + 1.0 / 6227020800;
  s = s * t2 - 1.0 / 39916800;
  s = s * t2 + 1.0 / 362880;
  s = s * t2 - 1.0 / 5040;
  s = s * t2 + 1.0 / 120;
  s = s * t2 - 1.0 / 6;
  s = th + th * t2 * s;
  double c = 1.0 / 20922789888000;
  c = c * t2 - 1.0 / 87178291200;
  c = c * t2 + 1.0 / 479001600;
  c = c * t2 - 1.0 / 3628800;
  c = c * t2 + 1.0 / 40320;
  c = c * t2 - 1.0 / 720;
  c = c * t2 + 1.0 / 24;
  c = c * t2 - 0.5;
  c = 1.0 + t2 * c;
  // Turn by q quarters: (c, s) -> (-s, c) per quarter.
  const bool odd = k & 1, neg_c = ((k + 1) & 2) != 0, neg_s = (k & 2) != 0;
  const double cq = odd ? s : c, sq = odd ? c : s;
  c_out = neg_c ? -cq : cq;
  s_out = neg_s ? -sq : sq;
}

// normals_at's loop, compiled once per target below: the same operations on every target (no
// FMA), so the same bits; wider targets only run more lanes at once (AVX-512DQ multiplies and
// converts 64-bit lanes in one instruction each, where AVX2 takes several).
[[gnu::always_inline]] inline void normals_loop(std::uint64_t state, std::uint64_t first,
                                                double* out, std::int64_t n) {
  if (n <= 0) return;
  constexpr std::int64_t kPairs = 128;
  double u1[kPairs], u2[kPairs], z[2 * kPairs];
  const std::uint64_t end = first + static_cast<std::uint64_t>(n);
  for (std::uint64_t p0 = first / 2; 2 * p0 < end; p0 += kPairs) {
    const std::int64_t m =
        static_cast<std::int64_t>(std::min<std::uint64_t>(kPairs, (end + 1) / 2 - p0));
    std::uint64_t s = state + (2 * p0) * SeededRng::kGolden;
    for (std::int64_t k = 0; k < m; ++k) {
      // As uniform(): u1 = 1 - uniform() in (0, 1] so its log is finite, u2 = uniform().
      u1[k] = 1.0 - static_cast<double>(SeededRng::mix(s += SeededRng::kGolden) >> 11) * 0x1.0p-53;
      u2[k] = static_cast<double>(SeededRng::mix(s += SeededRng::kGolden) >> 11) * 0x1.0p-53;
    }
    for (std::int64_t k = 0; k < m; ++k) u1[k] = std::sqrt(-2.0 * log_unit(u1[k]));
    for (std::int64_t k = 0; k < m; ++k) {
      double c, sn;
      sincos_turn(u2[k], c, sn);
      z[2 * k] = u1[k] * c;
      z[2 * k + 1] = u1[k] * sn;
    }
    // The part of this batch's values [2 p0, 2 (p0 + m)) that was asked for.
    const std::uint64_t lo = std::max(first, 2 * p0), hi = std::min(end, 2 * (p0 + m));
    std::memcpy(out + (lo - first), z + (lo - 2 * p0), (hi - lo) * sizeof(double));
  }
}

#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
#define BNSCOPE_RNG_TARGETS 1
[[gnu::target("arch=x86-64-v4")]] void normals_avx512(std::uint64_t state, std::uint64_t first,
                                                      double* out, std::int64_t n) {
  normals_loop(state, first, out, n);
}
[[gnu::target("avx2")]] void normals_avx2(std::uint64_t state, std::uint64_t first, double* out,
                                          std::int64_t n) {
  normals_loop(state, first, out, n);
}
#endif
void normals_plain(std::uint64_t state, std::uint64_t first, double* out, std::int64_t n) {
  normals_loop(state, first, out, n);
}

}  // namespace

NormalsPath normals_best_path() {
#ifdef BNSCOPE_RNG_TARGETS
  static const NormalsPath best = [] {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("x86-64-v4")) return NormalsPath::Avx512;
    if (__builtin_cpu_supports("avx2")) return NormalsPath::Avx2;
    return NormalsPath::Plain;
  }();
  return best;
#else
  return NormalsPath::Plain;
#endif
}

void SeededRng::normals_at_by(NormalsPath path, std::uint64_t first, double* out,
                              std::int64_t n) const {
  path = std::min(path, normals_best_path());
#ifdef BNSCOPE_RNG_TARGETS
  if (path == NormalsPath::Avx512) return normals_avx512(s_, first, out, n);
  if (path == NormalsPath::Avx2) return normals_avx2(s_, first, out, n);
#endif
  normals_plain(s_, first, out, n);
}

void SeededRng::normals_at(std::uint64_t first, double* out, std::int64_t n) const {
  normals_at_by(normals_best_path(), first, out, n);
}

}  // namespace bnscope
