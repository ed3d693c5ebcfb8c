// The sweeps' accumulator rows must start on a cache line whatever the heap hands out (a vector
// store that straddles two lines is what made the wide-row sweep slow on the Zen 4 host), and
// keep their one-line stagger from row to row (the 4K-aliasing guard in kernels.h).

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

}  // namespace
}  // namespace bnscope::testing
