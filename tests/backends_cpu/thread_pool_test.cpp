// The cpu backend's pool must turn a worker's exception into bnscope::Error for the caller
// (an escaping exception on a worker thread would end the process) and stay usable.

#include "backends/cpu/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <new>
#include <stdexcept>

#include "tensor/error.h"

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

}  // namespace
}  // namespace bnscope
