// cpu-reference's channels-last float32/float64 gradient loops run in vector clones
// (grad_channels_last.h): every clone must give the bits of fused_grad's plain loops, for any
// channel range (tiles and tails), both modes and both dtypes.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "backends/reference/grad_channels_last.h"

namespace bnscope::reference {
namespace {

// Values over many magnitudes, some exact ties and signed zeros, so rounding shows.
template <class T>
std::vector<T> values(std::size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  std::uniform_int_distribution<int> scale(-20, 20);
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    const int kind = static_cast<int>(rng() % 16);
    v[i] = kind == 0   ? T(0)
           : kind == 1 ? T(-0.0)
           : kind == 2 ? T(1.5)
                       : static_cast<T>(std::ldexp(normal(rng), scale(rng)));
  }
  return v;
}

std::vector<double> doubles(std::size_t n, unsigned seed, double lo) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(lo, lo + 3.0);
  std::vector<double> v(n);
  for (double& d : v) d = u(rng);
  return v;
}

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

template <class T>
void check_width(std::int64_t C, int isa) {
  const std::int64_t rows = 29;
  const auto n = static_cast<std::size_t>(rows * C);
  const auto uc = static_cast<std::size_t>(C);
  const std::vector<T> x = values<T>(n, 1), dy = values<T>(n, 2);
  const std::vector<double> mu = doubles(uc, 3, -1.0), k = doubles(uc, 4, 0.1),
                            gk = doubles(uc, 5, -1.5), mean_dy = doubles(uc, 6, -1.0);
  const std::string what = std::string(sizeof(T) == 4 ? "float" : "double") +
                           " C=" + std::to_string(C) + " isa " + std::to_string(isa);

  // Sums of a channel range [c0, c1) as fused_grad's plain loop makes them.
  for (const auto& [c0, c1] : {std::pair<std::int64_t, std::int64_t>{0, C}, {C / 3, C}}) {
    const auto w = static_cast<std::size_t>(c1 - c0);
    std::vector<double> want_sd(w, 0.0), want_sdx(w, 0.0), sd(w, 0.0), sdx(w, 0.0);
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::size_t j = 0; j < w; ++j) {
        const auto e = static_cast<std::size_t>(r * C + c0) + j;
        const double xs = static_cast<double>(x[e]), dys = static_cast<double>(dy[e]);
        want_sd[j] += dys;
        want_sdx[j] += dys * (xs - mu[static_cast<std::size_t>(c0) + j]);
      }
    grad_sums_channels_last(x.data(), dy.data(), rows, C, c0, c1, mu.data(), sd.data(), sdx.data(),
                            isa);
    EXPECT_TRUE(same_bits(sd, want_sd)) << what << " sum_dy [" << c0 << ", " << c1 << ")";
    EXPECT_TRUE(same_bits(sdx, want_sdx)) << what << " sum_dy_xc [" << c0 << ", " << c1 << ")";
  }

  const std::vector<double> s = doubles(uc, 7, -50.0);
  const double m = static_cast<double>(rows);
  for (bool training : {true, false}) {
    const GradFactors f{gk.data(), mean_dy.data(), mu.data(), k.data(), s.data(), m, training};
    std::vector<T> want(n), got(n, T(7));
    for (std::size_t e = 0; e < n; ++e) {
      const std::size_t c = e % uc;
      const double xs = static_cast<double>(x[e]), dys = static_cast<double>(dy[e]);
      const double d = training ? gk[c] * (dys - mean_dy[c] - (xs - mu[c]) * k[c] * k[c] * s[c] / m)
                                : gk[c] * dys;
      want[e] = static_cast<T>(d);
    }
    // Two row ranges, as two threads would write them.
    grad_dx_channels_last(x.data(), dy.data(), got.data(), 0, rows / 2, C, f, isa);
    grad_dx_channels_last(x.data(), dy.data(), got.data(), rows / 2, rows, C, f, isa);
    EXPECT_TRUE(same_bits(got, want)) << what << (training ? " training" : " inference");
  }
}

TEST(ReferenceVector, EveryCloneGivesThePlainLoopsBits) {
  for (int isa : {0, 1, 2})
    for (std::int64_t C : {1, 2, 3, 7, 8, 9, 16, 17, 31, 67, 256}) {
      check_width<float>(C, isa);
      check_width<double>(C, isa);
    }
}

}  // namespace
}  // namespace bnscope::reference
