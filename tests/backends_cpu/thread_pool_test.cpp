// The cpu backend's pool must turn a worker's exception into bnscope::Error for the caller
// (an escaping exception on a worker thread would end the process) and stay usable, and hand
// runs over both while its threads spin (runs back to back) and after they have gone to sleep
// (runs further apart than ThreadPool::kSpin), without losing a wake-up either way, and wake
// only the workers a run needs: worker i always runs task i, whatever ran before.

#include "backends/cpu/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <new>
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

TEST(ThreadPool, WorkerBadAllocReachesCallerAsError) {
  ThreadPool pool;
  std::atomic<int> ran{0};
  const ErrorCode code = code_of(pool, 2, [&](int i) {
    ++ran;
    if (i == 1) throw std::bad_alloc();
  });
  EXPECT_EQ(code, ErrorCode::ResourceExhausted);
  EXPECT_EQ(ran.load(), 2);  // the other task ran to its end before run() returned
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

TEST(ThreadPool, OtherExceptionsBecomeInternalAndPoolStaysUsable) {
  ThreadPool pool;
  EXPECT_EQ(code_of(pool, 1, [](int) { throw std::logic_error("x"); }), ErrorCode::Internal);
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
// others sleep through them), and a wide run after them, back to back or after a sleep, still
// reaches every worker, each on the task it ran first.
TEST(ThreadPool, NarrowRunsAfterAWideOneKeepEachTaskOnItsWorkerAndWakeTheRestWhenWideAgain) {
  ThreadPool pool;
  constexpr int kWide = 6;
  std::vector<std::thread::id> first(kWide);
  pool.run(kWide, [&](int i) { first[static_cast<std::size_t>(i)] = std::this_thread::get_id(); });
  for (int round = 0; round < 200; ++round) {
    const int n = round % 10 == 9 ? kWide : 1 + round % 3;  // mostly narrow, now and then wide
    std::vector<std::thread::id> ran(kWide);
    std::atomic<int> calls{0};
    pool.run(n, [&](int i) {
      ++calls;
      ran[static_cast<std::size_t>(i)] = std::this_thread::get_id();
    });
    ASSERT_EQ(calls.load(), n) << "round " << round;
    for (int i = 1; i < n; ++i) EXPECT_EQ(ran[i], first[i]) << "round " << round << " task " << i;
    for (int i = n; i < kWide; ++i) EXPECT_EQ(ran[i], std::thread::id{}) << "round " << round;
    if (round % 50 == 49) std::this_thread::sleep_for(ThreadPool::kSpin * 5);
  }
}

}  // namespace
}  // namespace bnscope
