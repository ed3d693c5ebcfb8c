// The sweeps' accumulator rows must start on a cache line whatever the heap hands out (a vector
// store that straddles two lines is what made the wide-row sweep slow on the Zen 4 host), and
// keep their one-line stagger from row to row (the 4K-aliasing guard in kernels.h). The per-lane
// tables the sweeps load beside their streams (line_vector.h) start on a line too: off a line,
// they made the float32 write sweep 1.5x slower on the Zen 5.

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "backends/cpu/kernels.h"

namespace bnscope::testing {
namespace {

template <class A>
void expect_line_aligned_rows(std::int64_t lanes, int count) {
  cpu::LaneArrays<A> arrays(lanes, count);
  for (int k = 0; k < count; ++k)
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(arrays[k]) % 64, 0u)
        << "lanes " << lanes << " row " << k;
  // Rows a 4 KiB multiple wide: each starts 16 elements further into the page than the last.
  for (int k = 1; k < count; ++k)
    EXPECT_EQ((reinterpret_cast<std::uintptr_t>(arrays[k]) -
               reinterpret_cast<std::uintptr_t>(arrays[k - 1])) %
                  4096,
              16 * sizeof(A))
        << "lanes " << lanes << " row " << k;
}

TEST(LaneArrays, RowsStartOnACacheLineWhateverTheHeapGives) {
  // Odd-sized allocations between the arrays move the heap's next address by 16 bytes at a time.
  std::vector<std::unique_ptr<char[]>> shifts;
  for (int i = 0; i < 8; ++i) {
    shifts.emplace_back(new char[16 * i + 8]);
    expect_line_aligned_rows<float>(1024, 4);
    expect_line_aligned_rows<double>(512, 3);
  }
}

TEST(LaneArrays, EveryRowIsWritableToItsLastLane) {
  for (std::int64_t lanes : {1, 17, 48, 1024, 2048}) {
    cpu::LaneArrays<float> arrays(lanes, 4);
    for (int k = 0; k < 4; ++k)
      for (std::int64_t j = 0; j < lanes; ++j) arrays[k][j] = static_cast<float>(k * lanes + j);
    for (int k = 0; k < 4; ++k)
      for (std::int64_t j = 0; j < lanes; ++j)
        ASSERT_EQ(arrays[k][j], static_cast<float>(k * lanes + j));
  }
}

bool on_line(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % 64 == 0;
}

TEST(LineVector, TablesStartOnACacheLineWhateverTheHeapGives) {
  std::vector<std::unique_ptr<char[]>> shifts;
  for (int i = 0; i < 8; ++i) {
    shifts.emplace_back(new char[16 * i + 8]);
    for (std::size_t n : {1, 3, 17, 256, 1000}) {
      cpu::LineVector<float> f(n, 1.0f);
      cpu::LineVector<double> d(n, 1.0);
      EXPECT_TRUE(on_line(f.data())) << "float, " << n << " elements, shift " << i;
      EXPECT_TRUE(on_line(d.data())) << "double, " << n << " elements, shift " << i;
    }
    // Grown one element at a time, as the grad ops build their coefficients.
    cpu::Affine<float> coefs;
    for (int c = 0; c < 300; ++c) {
      coefs.p.push_back(static_cast<float>(c));
      coefs.q.push_back(static_cast<float>(c));
      ASSERT_TRUE(on_line(coefs.p.data()) && on_line(coefs.q.data())) << "after " << c + 1;
    }
    EXPECT_EQ(coefs.p[299], 299.0f);
  }
}

TEST(LineVector, TiledTablesStartOnACacheLineAndRepeatTheChannels) {
  const std::vector<float> per_channel{1.0f, 2.0f, 3.0f};
  std::vector<std::unique_ptr<char[]>> shifts;
  for (int i = 0; i < 8; ++i) {
    shifts.emplace_back(new char[16 * i + 8]);
    const cpu::LineVector<float> tiled = cpu::tile(per_channel, 48);
    ASSERT_TRUE(on_line(tiled.data())) << "shift " << i;
    ASSERT_EQ(tiled.size(), 48u);
    for (std::size_t j = 0; j < tiled.size(); ++j) ASSERT_EQ(tiled[j], per_channel[j % 3]);
  }
}

}  // namespace
}  // namespace bnscope::testing
