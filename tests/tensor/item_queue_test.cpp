// The items of a pass go out once each: task t first takes its own span in its walk's order, then
// items off the far end of the fullest span left, so a thread that does not run holds no item
// back and the threads that do run take its share.

#include "tensor/item_queue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace bnscope {
namespace {

std::vector<std::int64_t> drain(ItemQueue& q, int t) {
  std::vector<std::int64_t> got;
  for (std::int64_t item; (item = q.next(t)) >= 0;) got.push_back(item);
  return got;
}

TEST(ItemQueue, OwnSpanFirstInWalkOrderThenHalfOfTheFullestSpanFromItsFarEnd) {
  const std::vector<Span> spans = {{0, 4}, {4, 7}, {7, 10}};
  ItemQueue forward(spans, false);
  EXPECT_EQ(forward.span(1).begin, 4);
  EXPECT_EQ(forward.span(1).end, 7);
  EXPECT_EQ(forward.next(1), 4);
  EXPECT_EQ(forward.next(1), 5);
  EXPECT_EQ(forward.next(1), 6);
  // Span 0 has 4 left: its last two, which its owner takes last, in its order.
  EXPECT_EQ(forward.next(1), 2);
  EXPECT_EQ(forward.next(1), 3);
  EXPECT_EQ(forward.next(1), 9);  // span 2 has 3 left, span 0 two: one off span 2's end
  EXPECT_EQ(forward.next(0), 0);

  ItemQueue backward(spans, true);
  EXPECT_EQ(backward.next(2), 9);
  EXPECT_EQ(backward.next(2), 8);
  EXPECT_EQ(backward.next(2), 7);
  EXPECT_EQ(backward.next(2), 1);  // span 0's first two, which its owner walks down to last
  EXPECT_EQ(backward.next(2), 0);
  EXPECT_EQ(backward.next(0), 3);
}

TEST(ItemQueue, EqualSpansAreTheOneSplitsParts) {
  const ItemQueue q(10, 3);
  for (int t = 0; t < 3; ++t) {
    EXPECT_EQ(q.span(t).begin, split_range(10, 3, t).begin);
    EXPECT_EQ(q.span(t).end, split_range(10, 3, t).end);
  }
}

// The owner claims a quarter of its span at a time, which no thief can take; the rest of its
// span goes to thieves from the far end.
TEST(ItemQueue, OwnersClaimAQuarterOfTheirSpanAtATime) {
  ItemQueue q(16, 2);       // spans [0,8) [8,16): batches of 2
  EXPECT_EQ(q.next(0), 0);  // claims 0 and 1
  EXPECT_EQ(drain(q, 1),
            (std::vector<std::int64_t>{8, 9, 10, 11, 12, 13, 14, 15, 5, 6, 7, 4, 3, 2}));
  EXPECT_EQ(q.next(0), 1);
  EXPECT_EQ(q.next(0), -1);

  ItemQueue down(16, 2, true);
  EXPECT_EQ(down.next(0), 7);  // claims 6 and 7, walked down
  EXPECT_EQ(down.next(1), 15);
  EXPECT_EQ(drain(down, 1),
            (std::vector<std::int64_t>{14, 13, 12, 11, 10, 9, 8, 2, 1, 0, 3, 4, 5}));
  EXPECT_EQ(down.next(0), 6);
  EXPECT_EQ(down.next(0), -1);
}

TEST(ItemQueue, EveryItemOnceWhateverTheSpansAndTheOrderOfTakes) {
  for (int n : {1, 2, 3, 7})
    for (std::int64_t items : {0, 1, 5, 49, 100})
      for (bool last_first : {false, true}) {
        ItemQueue q(items, n, last_first);
        std::vector<int> seen(static_cast<std::size_t>(items), 0);
        // Tasks take in turn, the last one never: the others take its whole span.
        for (bool any = true; any;) {
          any = false;
          for (int t = 0; t + 1 < n || n == 1; ++t) {
            const std::int64_t item = q.next(t);
            if (item >= 0) {
              ++seen[static_cast<std::size_t>(item)];
              any = true;
            }
            if (n == 1) break;
          }
        }
        for (std::int64_t i = 0; i < items; ++i)
          EXPECT_EQ(seen[static_cast<std::size_t>(i)], 1)
              << "item " << i << " of " << items << ", " << n << " tasks";
        EXPECT_EQ(q.next(n - 1), -1);
      }
}

TEST(ItemQueue, GivenSpansAreTheOwnersAndMayBeUnequalOrEmpty) {
  ItemQueue q({{0, 1}, {1, 1}, {1, 6}}, false);
  EXPECT_EQ(q.next(1), 4);  // its own span is empty: the last half of span 2's five
  EXPECT_EQ(q.next(0), 0);
  EXPECT_EQ(drain(q, 2), (std::vector<std::int64_t>{1, 2, 3}));
  EXPECT_EQ(q.next(1), 5);
  EXPECT_EQ(q.next(1), -1);
  EXPECT_EQ(q.next(0), -1);
}

// Threads taking at once: each item still once, and a thread that starts late finds its span
// taken by the others.
TEST(ItemQueue, ConcurrentTakersShareEveryItemOnce) {
  constexpr int kThreads = 4;
  constexpr std::int64_t kItems = 20000;
  ItemQueue q(kItems, kThreads);
  std::vector<std::atomic<int>> seen(kItems);
  std::vector<std::int64_t> taken(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      if (t == kThreads - 1) std::this_thread::sleep_for(std::chrono::milliseconds(200));
      for (std::int64_t item; (item = q.next(t)) >= 0; ++taken[static_cast<std::size_t>(t)])
        ++seen[static_cast<std::size_t>(item)];
    });
  for (auto& th : threads) th.join();
  for (std::int64_t i = 0; i < kItems; ++i)
    ASSERT_EQ(seen[static_cast<std::size_t>(i)].load(), 1) << "item " << i;
  EXPECT_LT(taken[kThreads - 1], kItems / kThreads);  // its span went to the others
}

}  // namespace
}  // namespace bnscope
