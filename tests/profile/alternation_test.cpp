#include "profile/alternation.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace bnscope {
namespace {

// Call costs in units of 1/1024 s, so that every sum of them is exact.
constexpr double kUnit = 1.0 / 1024;

// A fake clock that only the calls advance.
struct FakeHost {
  double now = 0;
  std::string order;  // one letter per call
  Clock clock() {
    return [this] { return now; };
  }
};

AlternationOptions quick(int rounds) {
  AlternationOptions o;
  o.rounds = rounds;
  o.window_seconds = 6 * kUnit;
  o.min_calls = 2;
  o.max_calls = 50;
  o.pause = std::chrono::microseconds(0);
  return o;
}

TEST(Alternation, WindowsAreSizedFromOneCallAndAlternateWhichGoesFirst) {
  FakeHost h;
  const Alternation r = alternate([&] { h.now += kUnit, h.order += 'a'; },
                                  [&] { h.now += 3 * kUnit, h.order += 'b'; }, quick(3), h.clock());
  EXPECT_EQ(r.calls_a, 6);  // a window of 6 units, calls of 1
  EXPECT_EQ(r.calls_b, 2);  // calls of 3
  // Warm-up a and b, then a window each per round, b first in the odd rounds.
  EXPECT_EQ(h.order,
            "ab"
            "aaaaaabb"
            "bbaaaaaa"
            "aaaaaabb");
  ASSERT_EQ(r.a_seconds.size(), 3u);
  ASSERT_EQ(r.b_seconds.size(), 3u);
  EXPECT_EQ(r.a_median(), kUnit);
  EXPECT_EQ(r.b_median(), 3 * kUnit);
  for (double x : r.ratios()) EXPECT_EQ(x, 3.0);
}

TEST(Alternation, ASlowStretchMovesBothSidesOfItsRoundAndNotTheirRatio) {
  FakeHost h;
  int calls = 0;
  // The second round's two windows (8 calls each, after 2 warm-up calls and the first round's
  // 16) run at twice the cost, as when a neighbour takes half the memory for a while.
  auto cost = [&](double base) { return (calls >= 18 && calls < 34) ? 2 * base : base; };
  AlternationOptions o = quick(3);
  o.window_seconds = 8 * kUnit;
  o.min_calls = 8;
  const Alternation r = alternate([&] { h.now += cost(kUnit), ++calls; },
                                  [&] { h.now += cost(2 * kUnit), ++calls; }, o, h.clock());
  ASSERT_EQ(r.a_seconds.size(), 3u);
  EXPECT_EQ(r.a_seconds[1], 2 * kUnit);
  EXPECT_EQ(r.b_seconds[1], 4 * kUnit);
  for (double x : r.ratios()) EXPECT_EQ(x, 2.0);
  EXPECT_EQ(r.a_median(), kUnit);
}

TEST(Alternation, WindowMedianIgnoresTheOddSlowCall) {
  FakeHost h;
  int a_calls = 0;
  const Alternation r = alternate([&] { h.now += (++a_calls == 5) ? 100 * kUnit : kUnit; },
                                  [&] { h.now += kUnit; }, quick(1), h.clock());
  ASSERT_EQ(r.a_seconds.size(), 1u);
  EXPECT_EQ(r.a_seconds[0], kUnit);
}

TEST(Alternation, CallsPerWindowStayWithinTheBounds) {
  FakeHost h;
  AlternationOptions o = quick(1);
  o.window_seconds = 1.0;
  const Alternation r =
      alternate([&] { h.now += 0.0; }, [&] { h.now += 1024 * kUnit + kUnit; }, o, h.clock());
  EXPECT_EQ(r.calls_a, o.max_calls);  // a call too short to measure
  EXPECT_EQ(r.calls_b, o.min_calls);  // a call longer than the window
}

TEST(Alternation, AnExceptionFromEitherSidePropagates) {
  FakeHost h;
  EXPECT_THROW(alternate([] {}, [] { throw std::runtime_error("b failed"); }, quick(2), h.clock()),
               std::runtime_error);
}

}  // namespace
}  // namespace bnscope
