// The walk of wide single sweeps is measured once per (lanes, element) in a process: the rule
// that decides from the timings, and that a decision, once made, is kept and reported.

#include "backends/cpu/row_walk.h"

#include <gtest/gtest.h>

namespace bnscope::testing {
namespace {

TEST(RowWalk, RowsWinOnlyWhenClearlyFasterByMedian) {
  EXPECT_TRUE(cpu::rows_walk_faster({1.0, 1.0, 1.0}, {0.9, 0.9, 0.9}));
  EXPECT_FALSE(cpu::rows_walk_faster({1.0, 1.0, 1.0}, {0.98, 0.98, 0.98}));  // a tie keeps tiles
  EXPECT_FALSE(cpu::rows_walk_faster({1.0, 1.0, 1.0}, {1.2, 1.2, 1.2}));
  // One slow round (a neighbour's burst) does not decide: medians, not means.
  EXPECT_TRUE(cpu::rows_walk_faster({1.0, 1.0, 1.0}, {0.5, 0.5, 9.0}));
  EXPECT_FALSE(cpu::rows_walk_faster({1.0, 1.0, 9.0}, {1.5, 1.5, 0.1}));
  EXPECT_FALSE(cpu::rows_walk_faster({}, {0.1}));
  EXPECT_FALSE(cpu::rows_walk_faster({1.0}, {}));
}

TEST(RowWalk, NoTileNeedsNoMeasurement) {
  EXPECT_EQ(cpu::single_sweep_tile(2048, cpu::simd::Elem::F32, 0), 0);
  EXPECT_EQ(cpu::describe_row_walks().find("2048 lanes float32"), std::string::npos);
}

TEST(RowWalk, RowsOfMegabytesKeepTheRulesTile) {
  if (cpu::row_walk_policy() != cpu::RowWalkPolicy::Measure)
    GTEST_SKIP() << "BNSCOPE_ROW_WALK forces the walk";
  EXPECT_EQ(cpu::single_sweep_tile(std::int64_t{1} << 20, cpu::simd::Elem::F32, 1), 1);
  EXPECT_EQ(cpu::describe_row_walks().find("1048576 lanes"), std::string::npos);
}

TEST(RowWalk, ADecisionIsMadeOnceAndKept) {
  if (cpu::row_walk_policy() != cpu::RowWalkPolicy::Measure)
    GTEST_SKIP() << "BNSCOPE_ROW_WALK forces the walk";
  const std::int64_t first = cpu::single_sweep_tile(1536, cpu::simd::Elem::BF16, 5);
  EXPECT_TRUE(first == 5 || first == 0) << first;
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(cpu::single_sweep_tile(1536, cpu::simd::Elem::BF16, 5), first);
  const std::string seen = cpu::describe_row_walks();
  EXPECT_NE(seen.find(std::string("1536 lanes bfloat16: ") + (first ? "tiles" : "rows")),
            std::string::npos)
      << seen;
}

}  // namespace
}  // namespace bnscope::testing
