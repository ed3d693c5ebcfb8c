// The wide-row sweep walks rows in tiles, one channel block at a time, with the tile size taken
// from the host's L2. Whatever the tile, every lane must add its rows in row order, so the sums
// (and dx) must equal those of the row-at-a-time loop bit for bit on every target: full blocks,
// the vectors left after them, a scalar tail (L = 203 on every target), tiles that do not divide
// the rows. With an output the tiles only sum and write out afterwards, row by row. The
// row-at-a-time loop without an output takes rows in pairs or singly (walk_trial.h): both too,
// over adjacent rows (channels-last) and rows further apart (channel blocks).

#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "backends/cpu/simd.h"
#include "vector_targets.h"

namespace bnscope::testing {
namespace {

template <class T>
std::uint32_t bits_of(T v) {
  std::uint32_t u = 0;
  std::memcpy(&u, &v, sizeof v);
  return u;
}

template <class T>
void expect_tiles_match_rows(cpu::simd::Elem elem, bool moments, bool write) {
  constexpr std::int64_t kRows = 13;
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.5f, 2.0f);
  for (const std::int64_t L : {80, 112, 200, 203, 1024})
    for (const std::int64_t gap : {0, 48}) {  // a channel block's rows lie further apart than L
      const std::int64_t stride = L + gap;
      std::vector<T> a(static_cast<std::size_t>(kRows * stride)), b(a.size());
      for (std::size_t i = 0; i < a.size(); ++i) {
        a[i] = cpu::store<T>(normal(rng));
        b[i] = cpu::store<T>(normal(rng));
      }
      std::vector<float> m(static_cast<std::size_t>(L)), p(m.size());
      for (std::size_t j = 0; j < m.size(); ++j) {
        m[j] = normal(rng);
        p[j] = normal(rng);
      }
      std::vector<float> want0(m.size(), 0.25f), want1(m.size(), -0.5f);
      std::vector<T> want_out(a.size());
      for (std::int64_t k = 0; k < kRows; ++k)
        for (std::int64_t j = 0; j < L; ++j) {
          const std::int64_t e = k * stride + j;
          const float av = cpu::load(a[e]), bv = cpu::load(b[e]), dv = av - m[j];
          if (moments) {
            want0[j] += dv;
            want1[j] += dv * dv;
          } else {
            want0[j] += bv;
            want1[j] += bv * dv;
          }
          want_out[e] = cpu::store<T>(p[j] * bv);
        }
      const std::int64_t tiles[] = {0, 1, 2, 5, kRows, 64};  // 0: no tiles
      for (const std::int64_t tile : tiles)
        for (const bool pairs : {true, false}) {
          std::vector<float> acc0(m.size(), 0.25f), acc1(m.size(), -0.5f);
          std::vector<T> out(a.size());
          cpu::simd::Sweep s{elem,       moments, a.data(), b.data(), write ? out.data() : nullptr,
                             /*nt=*/true};
          s.pairs = pairs;
          cpu::simd::rows_sweep(s, kRows, L, stride, tile, m.data(), p.data(), acc0.data(),
                                acc1.data());
          const auto where = [&](std::int64_t j) {
            return ::testing::Message()
                   << cpu::simd::target_name() << " L " << L << " stride " << stride << " tile "
                   << tile << (pairs ? " pairs" : " rows") << " lane " << j;
          };
          for (std::int64_t j = 0; j < L; ++j) {
            ASSERT_EQ(bits_of(acc0[j]), bits_of(want0[j])) << where(j);
            ASSERT_EQ(bits_of(acc1[j]), bits_of(want1[j])) << where(j);
          }
          if (write) {
            for (std::int64_t k = 0; k < kRows; ++k)
              for (std::int64_t j = 0; j < L; ++j)
                ASSERT_EQ(bits_of(out[k * stride + j]), bits_of(want_out[k * stride + j]))
                    << where(j);
          }
        }
    }
}

TEST(RowTiles, EveryTileSumsInRowOrderOnEveryTarget) {
  TargetGuard guard;
  for (std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    for (const bool moments : {false, true})
      for (const bool write : {false, true}) {
        expect_tiles_match_rows<float>(cpu::simd::Elem::F32, moments, write);
        expect_tiles_match_rows<bf16>(cpu::simd::Elem::BF16, moments, write);
        expect_tiles_match_rows<f16>(cpu::simd::Elem::F16, moments, write);
      }
  }
}

}  // namespace
}  // namespace bnscope::testing
