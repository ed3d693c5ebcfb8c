#include "backends/cpu/thread_pool.h"

#include <algorithm>
#include <new>
#include <string>

#include "tensor/error.h"
#include "tensor/parallel.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace bnscope {

namespace {

// Polls done() until it holds or ThreadPool::kSpin has passed; true when it held.
template <class F>
bool spin_until(F&& done) {
  const auto deadline = std::chrono::steady_clock::now() + ThreadPool::kSpin;
  for (int i = 0;; ++i) {
    if (done()) return true;
    // The clock is read every 64 polls: a poll is a load and a pause, the clock tens of them.
    if (i % 64 == 63 && std::chrono::steady_clock::now() >= deadline) return false;
#if defined(__x86_64__) || defined(__i386__)
    _mm_pause();
#endif
  }
}

}  // namespace

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  for (auto& w : workers_) w->wake.notify_one();
  for (auto& w : workers_) w->thread.join();
}

void ThreadPool::ensure_workers(int count) {
  while (static_cast<int>(workers_.size()) < count) {
    const int index = static_cast<int>(workers_.size()) + 1;  // task 0 is the caller's
    auto w = std::make_unique<Worker>();
    Worker& worker = *w;
    workers_.push_back(std::move(w));
    try {
      worker.thread = std::thread([this, index, &worker] { worker_loop(index, worker.wake); });
    } catch (...) {
      workers_.pop_back();
      throw;
    }
  }
}

void ThreadPool::run_task(int index) {
  try {
    (*task_)(index);
  } catch (...) {
    std::lock_guard lock(mutex_);
    if (failed_index_ < 0 || index < failed_index_) {
      failed_index_ = index;
      failure_ = std::current_exception();
    }
  }
}

void ThreadPool::rethrow_failure() {
  std::exception_ptr failure;
  std::swap(failure, failure_);
  failed_index_ = -1;
  if (!failure) return;
  try {
    std::rethrow_exception(failure);
  } catch (const Error&) {
    throw;
  } catch (const std::bad_alloc&) {
    throw Error(ErrorCode::ResourceExhausted, "cpu backend: out of memory in a worker thread");
  } catch (const std::exception& e) {
    throw Error(ErrorCode::Internal, std::string("cpu backend: worker thread failed: ") + e.what());
  } catch (...) {
    throw Error(ErrorCode::Internal, "cpu backend: worker thread failed");
  }
}

void ThreadPool::run(int n, const std::function<void(int)>& task) {
  if (n <= 0) return;
  if (n == 1) {
    task_ = &task;
    run_task(0);
    task_ = nullptr;
    rethrow_failure();
    return;
  }
  {
    std::lock_guard lock(mutex_);
    try {
      ensure_workers(n - 1);
    } catch (const std::exception& e) {
      throw Error(ErrorCode::ResourceExhausted,
                  std::string("cpu backend: cannot start worker threads: ") + e.what());
    }
    task_ = &task;
    active_ = n;
    pending_ = n - 1;
    static const int cpus = usable_cpus();  // a system call per run otherwise
    spin_ = n <= cpus;
    ++generation_;
  }
  for (int i = 0; i + 1 < n; ++i) workers_[static_cast<std::size_t>(i)]->wake.notify_one();
  run_task(0);
  if (spin_) spin_until([this] { return pending_.load() == 0; });
  {
    std::unique_lock lock(mutex_);
    done_.wait(lock, [this] { return pending_ == 0; });
    task_ = nullptr;
  }
  rethrow_failure();
}

void ThreadPool::worker_loop(int index, std::condition_variable& wake) {
  std::uint64_t seen = 0;
  std::unique_lock lock(mutex_);
  for (;;) {
    // After a task: poll for the next run a while (a run that does not need this worker ends
    // the poll too, and it sleeps).
    if (spin_ && generation_ == seen && !stop_) {
      lock.unlock();
      spin_until([&] { return stop_.load() || generation_.load() != seen; });
      lock.lock();
    }
    wake.wait(lock, [&] { return stop_ || (generation_ != seen && index < active_); });
    if (stop_) return;
    seen = generation_;
    lock.unlock();
    run_task(index);
    lock.lock();
    if (--pending_ == 0) done_.notify_one();
  }
}

}  // namespace bnscope
