// parallel_for: contiguous parts that cover [0, n) once each, in the order of their index, and a
// failure in any part rethrown (the lowest part's) only after every part has ended.

#include "tensor/parallel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <sched.h>
#endif

namespace bnscope {
namespace {

#if defined(__linux__)
// "Every thread" is every CPU the process may run on: under taskset or a cpuset, the mask's
// CPUs, not the machine's (a new thread inherits the mask of the one that starts it).
TEST(UsableCpus, FollowTheAffinityMask) {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  ASSERT_EQ(sched_getaffinity(0, sizeof(mask), &mask), 0);
  EXPECT_EQ(usable_cpus(), CPU_COUNT(&mask));
  int first = 0;
  while (!CPU_ISSET(first, &mask)) ++first;
  int inside = 0, parts = 0, inherited = 0;
  std::thread([&] {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    ASSERT_EQ(sched_setaffinity(0, sizeof(one), &one), 0);
    inside = usable_cpus();
    parts = parallel_parts(1000, 1, 0);
    std::thread([&] { inherited = usable_cpus(); }).join();
  }).join();
  EXPECT_EQ(inside, 1);
  EXPECT_EQ(parts, 1);
  EXPECT_EQ(inherited, 1);
  EXPECT_EQ(usable_cpus(), CPU_COUNT(&mask));  // the test's own thread kept its mask
}
#endif

TEST(ParallelFor, PartsCoverTheRangeOnceInOrder) {
  for (std::int64_t n : {0, 1, 7, 1000}) {
    for (int parts : {1, 2, 3, 8}) {
      std::vector<std::int64_t> begins(static_cast<std::size_t>(parts), -1), ends(begins);
      std::vector<std::atomic<int>> hits(static_cast<std::size_t>(n));
      parallel_for(n, parts, [&](int k, std::int64_t b, std::int64_t e) {
        begins[static_cast<std::size_t>(k)] = b;
        ends[static_cast<std::size_t>(k)] = e;
        for (std::int64_t i = b; i < e; ++i) ++hits[static_cast<std::size_t>(i)];
      });
      for (std::int64_t i = 0; i < n; ++i)
        EXPECT_EQ(hits[static_cast<std::size_t>(i)].load(), 1) << n << " " << parts << " " << i;
      std::int64_t at = 0;
      for (std::size_t k = 0; k < begins.size(); ++k) {
        if (begins[k] < 0) continue;  // fewer parts than asked when n is small
        EXPECT_EQ(begins[k], at) << n << " " << parts << " part " << k;
        at = ends[k];
      }
      EXPECT_EQ(at, n) << n << " " << parts;
    }
  }
}

TEST(ParallelFor, LowestFailingPartIsRethrownAfterAllEnded) {
  std::atomic<int> ended{0};
  try {
    parallel_for(100, 4, [&](int k, std::int64_t, std::int64_t) {
      ++ended;
      if (k >= 1) throw std::runtime_error("part " + std::to_string(k));
    });
    ADD_FAILURE() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "part 1");
  }
  EXPECT_EQ(ended.load(), 4);
}

TEST(ParallelFor, PartCountsFollowTheRequest) {
  EXPECT_EQ(parallel_parts(10, 100, 8), 1);
  EXPECT_EQ(parallel_parts(1000, 100, 3), 3);
  EXPECT_EQ(parallel_parts(250, 100, 8), 2);
  EXPECT_EQ(channel_parts(5, 10, 8), 5);   // asked for: one channel each at least
  EXPECT_EQ(channel_parts(64, 10, 0), 1);  // automatic: too little work for a second thread
}

}  // namespace
}  // namespace bnscope
