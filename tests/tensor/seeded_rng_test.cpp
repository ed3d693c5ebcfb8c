// SeededRng's normal stream: Box-Muller pairs from the splitmix64 draws, with a polynomial log and
// sine/cosine. Checked against libm's Box-Muller on the same draws, pinned bit for bit (a seed
// names the same sample everywhere), the same for any range it is made in, and standard normal
// in its moments and tails.

#include "tensor/seeded_rng.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

namespace bnscope {
namespace {

std::vector<double> stream(std::uint64_t seed, std::uint64_t first, std::int64_t n) {
  std::vector<double> v(static_cast<std::size_t>(n));
  SeededRng(seed).normals_at(first, v.data(), n);
  return v;
}

TEST(SeededRng, NormalsAreLibmBoxMullerOnTheSameDraws) {
  const std::int64_t n = 200000;
  const std::vector<double> z = stream(7, 0, n);
  SeededRng draws(7);
  double worst = 0;
  for (std::int64_t j = 0; j < n; j += 2) {
    const double u1 = 1.0 - draws.uniform(), u2 = draws.uniform();
    const double r = std::sqrt(-2.0 * std::log(u1)), a = 6.283185307179586 * u2;
    const double want[2] = {r * std::cos(a), r * std::sin(a)};
    for (int h = 0; h < 2; ++h) {
      const double err = std::fabs(z[static_cast<std::size_t>(j + h)] - want[h]) /
                         std::max(1.0, std::fabs(want[h]));
      worst = std::max(worst, err);
    }
  }
  EXPECT_LT(worst, 1e-14);
}

TEST(SeededRng, NormalsArePinned) {
  // Seed 1 names the same problem in the CLI, the app and the tests: these bits must not move.
  const std::vector<double> z = stream(1, 0, 6);
  const std::uint64_t want[6] = {0xbfa18b7c84d5c3e1ull, 0xbff4ae86490c8e97ull,
                                 0xc004002362ce87beull, 0x3fed2abbf980ca39ull,
                                 0x3fb674facc896deaull, 0xbff149417ad438e6ull};
  for (int k = 0; k < 6; ++k) {
    std::uint64_t bits;
    std::memcpy(&bits, &z[static_cast<std::size_t>(k)], sizeof bits);
    EXPECT_EQ(bits, want[k]) << "value " << k << " = " << z[static_cast<std::size_t>(k)];
  }
}

TEST(SeededRng, AnyRangeGivesTheStreamsValues) {
  const std::vector<double> all = stream(42, 0, 1000);
  for (std::uint64_t first : {0u, 1u, 2u, 127u, 255u, 256u, 257u, 511u}) {
    for (std::int64_t n : {1, 2, 3, 255, 256, 257, 400}) {
      if (first + static_cast<std::uint64_t>(n) > all.size()) continue;
      const std::vector<double> part = stream(42, first, n);
      EXPECT_EQ(std::memcmp(part.data(), all.data() + first, part.size() * sizeof(double)), 0)
          << "first " << first << " n " << n;
    }
  }
}

TEST(SeededRng, NormalsMovePastThePairsTheyUsed) {
  for (std::int64_t n : {0, 1, 2, 5, 256, 1001}) {
    SeededRng a(9);
    std::vector<double> z(static_cast<std::size_t>(n));
    a.normals(z.data(), n);
    // memcmp takes no null pointer, even for 0 bytes (n = 0 has no buffer).
    EXPECT_TRUE(n == 0 ||
                std::memcmp(z.data(), stream(9, 0, n).data(), z.size() * sizeof(double)) == 0)
        << n;
    EXPECT_EQ(a.next(), SeededRng(9).skipped(2 * ((static_cast<std::uint64_t>(n) + 1) / 2)).next())
        << n;
  }
}

TEST(SeededRng, EveryInstructionSetGivesTheSameBits) {
  // Ranges that start and end inside a batch of pairs and cross several, from seeds whose draws
  // reach the log's and the quarter turns' edge cases over a million values.
  for (std::uint64_t seed : {1u, 5u, 77u}) {
    const std::int64_t n = 1 << 20;
    std::vector<double> plain(static_cast<std::size_t>(n)), wide(plain.size());
    const SeededRng rng(seed);
    rng.normals_at_by(NormalsPath::Plain, 3, plain.data(), n);
    for (NormalsPath path : {NormalsPath::Avx2, NormalsPath::Avx512}) {
      if (path > normals_best_path()) {
        std::printf("path %d: not on this CPU, checked as the widest it has\n",
                    static_cast<int>(path));
      }
      rng.normals_at_by(path, 3, wide.data(), n);
      EXPECT_EQ(std::memcmp(plain.data(), wide.data(), plain.size() * sizeof(double)), 0)
          << "seed " << seed << " path " << static_cast<int>(path);
    }
  }
}

TEST(SeededRng, NormalsHaveStandardMomentsAndTails) {
  const std::int64_t n = 1 << 21;
  const std::vector<double> z = stream(3, 0, n);
  double m1 = 0, m2 = 0, m3 = 0, m4 = 0;
  std::int64_t beyond3 = 0, even_beyond2 = 0, odd_beyond2 = 0;
  for (std::int64_t j = 0; j < n; ++j) {
    const double v = z[static_cast<std::size_t>(j)];
    ASSERT_TRUE(std::isfinite(v));
    m1 += v;
    m2 += v * v;
    m3 += v * v * v;
    m4 += v * v * v * v;
    beyond3 += std::fabs(v) > 3;
    (j % 2 ? odd_beyond2 : even_beyond2) += std::fabs(v) > 2;
  }
  const double N = static_cast<double>(n);
  m1 /= N, m2 /= N, m3 /= N, m4 /= N;
  // Five standard errors of each estimate.
  EXPECT_NEAR(m1, 0.0, 5 / std::sqrt(N));
  EXPECT_NEAR(m2, 1.0, 5 * std::sqrt(2 / N));
  EXPECT_NEAR(m3, 0.0, 5 * std::sqrt(15 / N));
  EXPECT_NEAR(m4, 3.0, 5 * std::sqrt(96 / N));
  const double p3 = 0.0026997960632601866;  // P(|Z| > 3)
  EXPECT_NEAR(static_cast<double>(beyond3) / N, p3, 5 * std::sqrt(p3 / N));
  // The cosine and the sine halves are both normal (a quadrant mix-up would show here).
  const double p2 = 0.04550026389635842;  // P(|Z| > 2)
  for (std::int64_t c : {even_beyond2, odd_beyond2})
    EXPECT_NEAR(static_cast<double>(c) / (N / 2), p2, 5 * std::sqrt(p2 / (N / 2)));
}

}  // namespace
}  // namespace bnscope
