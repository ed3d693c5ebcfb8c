// The core's pool must hand a worker's exception to the caller as thrown (an escaping exception
// on a worker thread would end the process) and stay usable, serve two callers and runs asked
// for inside a task, and hand
// runs over both while its threads spin (runs back to back) and after they have gone to sleep
// (runs further apart than ThreadPool::kSpin), without losing a wake-up either way, wake only
// the workers a run needs, and not wait for a worker to start a task the caller can run.

#include "tensor/thread_pool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <new>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "tensor/error.h"
#include "tensor/parallel.h"

namespace bnscope {
namespace {

ErrorCode code_of(ThreadPool& pool, int n, const std::function<void(int)>& task) {
  try {
    pool.run(n, task);
  } catch (const Error& e) {
    return e.code();
  }
  ADD_FAILURE() << "run() did not throw";
  return ErrorCode::InvalidArgument;
}

TEST(ThreadPool, WorkerBadAllocReachesTheCaller) {
  ThreadPool pool;
  std::atomic<int> ran{0};
  EXPECT_THROW(pool.run(2,
                        [&](int i) {
                          ++ran;
                          if (i == 1) throw std::bad_alloc();
                        }),
               std::bad_alloc);
  EXPECT_EQ(ran.load(), 2);  // the other task ran to its end before run() returned
}

TEST(ThreadPool, ARunInsideATaskRunsInOrderOnItsThread) {
  ThreadPool pool;
  std::vector<std::vector<int>> seen(2);
  pool.run(2, [&](int outer) {
    const std::thread::id self = std::this_thread::get_id();
    pool.run(3, [&](int inner) {
      EXPECT_EQ(std::this_thread::get_id(), self);
      seen[static_cast<std::size_t>(outer)].push_back(inner);
    });
  });
  for (const auto& s : seen) EXPECT_EQ(s, (std::vector<int>{0, 1, 2}));
}

TEST(ThreadPool, TwoCallersTakeTurns) {
  std::atomic<int> sum{0};
  const auto caller = [&] {
    for (int r = 0; r < 200; ++r) shared_pool().run(3, [&](int i) { sum += i; });
  };
  std::thread other(caller);
  caller();
  other.join();
  EXPECT_EQ(sum.load(), 2 * 200 * (0 + 1 + 2));
}

TEST(ThreadPool, CallerTaskFailureWaitsForWorkersAndKeepsTheError) {
  ThreadPool pool;
  std::atomic<int> ran{0};
  const ErrorCode code = code_of(pool, 3, [&](int i) {
    ++ran;
    if (i == 0) throw Error(ErrorCode::Cancelled, "stop");
    if (i == 2) throw std::runtime_error("later task");
  });
  EXPECT_EQ(code, ErrorCode::Cancelled);  // lowest failing index wins, whatever the timing
  EXPECT_EQ(ran.load(), 3);
}

TEST(ThreadPool, OtherExceptionsKeepTheirTypeAndThePoolStaysUsable) {
  ThreadPool pool;
  EXPECT_THROW(pool.run(1, [](int) { throw std::logic_error("x"); }), std::logic_error);
  std::atomic<int> sum{0};
  pool.run(4, [&](int i) { sum += i; });
  EXPECT_EQ(sum.load(), 0 + 1 + 2 + 3);
}

TEST(ThreadPool, RunsBackToBackEachSeeEveryTaskOnce) {
  ThreadPool pool;
  const int n = std::max(2, resolve_threads(0));
  std::vector<int> counts(static_cast<std::size_t>(n), 0);
  for (int run = 0; run < 2000; ++run) pool.run(n, [&](int i) { ++counts[i]; });
  for (int i = 0; i < n; ++i) EXPECT_EQ(counts[i], 2000) << "task " << i;
}

TEST(ThreadPool, RunsAfterTheWorkersWentToSleepStillComplete) {
  ThreadPool pool;
  std::atomic<int> sum{0};
  for (int run = 0; run < 5; ++run) {
    pool.run(2, [&](int i) { sum += i + 1; });
    std::this_thread::sleep_for(ThreadPool::kSpin * 5);
  }
  EXPECT_EQ(sum.load(), 5 * 3);
}

TEST(ThreadPool, OversubscribedRunsAndAPoolDestroyedWhileItsWorkersSpinEnd) {
  std::atomic<int> sum{0};
  for (int k = 0; k < 50; ++k) {
    ThreadPool pool;
    pool.run(2, [&](int i) { sum += i; });
    pool.run(resolve_threads(0) + 3, [&](int i) { sum += i; });
  }  // destroyed right after a run, its workers still spinning
  const int n = resolve_threads(0) + 3;
  EXPECT_EQ(sum.load(), 50 * (1 + n * (n - 1) / 2));
}

// A pool that ran wide once keeps its workers; narrow runs after it wake only theirs (the
// others sleep through them: the runs of n tasks all run on the same n threads at most), and a
// wide run after them, back to back or after a sleep, still runs every task once.
TEST(ThreadPool, NarrowRunsAfterAWideOneRunOnlyOnTheWorkersTheyNeed) {
  ThreadPool pool;
  constexpr int kWide = 6;
  pool.run(kWide, [](int) {});
  std::vector<std::set<std::thread::id>> threads_of(kWide + 1);  // by tasks per run
  for (int round = 0; round < 300; ++round) {
    const int n = round % 10 == 9 ? kWide : 1 + round % 3;  // mostly narrow, now and then wide
    std::vector<std::thread::id> ran(kWide);
    std::atomic<int> calls{0};
    pool.run(n, [&](int i) {
      ++calls;
      ran[static_cast<std::size_t>(i)] = std::this_thread::get_id();
    });
    ASSERT_EQ(calls.load(), n) << "round " << round;
    EXPECT_EQ(ran[0], std::this_thread::get_id()) << "round " << round;  // task 0: the caller's
    for (int i = 0; i < n; ++i) threads_of[static_cast<std::size_t>(n)].insert(ran[i]);
    for (int i = n; i < kWide; ++i) EXPECT_EQ(ran[i], std::thread::id{}) << "round " << round;
    if (round % 50 == 49) std::this_thread::sleep_for(ThreadPool::kSpin * 5);
  }
  for (int n = 1; n <= 3; ++n)
    EXPECT_LE(threads_of[static_cast<std::size_t>(n)].size(), static_cast<std::size_t>(n)) << n;
}

// A task no worker has claimed when the caller's own ends is run by the caller, not waited for.
// Here the workers are slow to start (more tasks than CPUs, so they sleep between runs and are
// woken one by one) and slow to finish, the caller's own task instant: over 20 runs the caller
// runs some of the workers' tasks, where a static split had it wait for them every time.
TEST(ThreadPool, TasksNoWorkerClaimedRunOnTheCaller) {
  ThreadPool pool;
  const int n = resolve_threads(0) + 6;
  std::atomic<int> on_caller{0};
  std::vector<std::atomic<int>> count(static_cast<std::size_t>(n));
  const auto caller = std::this_thread::get_id();
  for (int run = 0; run < 20; ++run) {
    pool.run(n, [&](int i) {
      ++count[static_cast<std::size_t>(i)];
      if (std::this_thread::get_id() == caller) {
        if (i != 0) ++on_caller;
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    });
  }
  for (int i = 0; i < n; ++i) EXPECT_EQ(count[static_cast<std::size_t>(i)].load(), 20) << i;
  EXPECT_GT(on_caller.load(), 0);  // a static split would have run task 0 alone there
}

}  // namespace
}  // namespace bnscope
