#include "tensor/thread_pool.h"

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

// Set while this thread runs a task of some run: a run it asks for runs inline.
thread_local bool in_task = false;

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
  const bool outer = in_task;
  in_task = true;
  try {
    (*task_)(index);
    in_task = outer;
  } catch (...) {
    in_task = outer;
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
  if (failure) std::rethrow_exception(failure);
}

namespace {

constexpr std::uint64_t kField = (std::uint64_t{1} << 20) - 1;

std::uint64_t claims_word(std::uint64_t generation, int tasks, int next) {
  return (generation & 0xFFFFFF) << 40 | static_cast<std::uint64_t>(tasks) << 20 |
         static_cast<std::uint64_t>(next);
}

}  // namespace

int ThreadPool::claim(std::uint32_t generation) {
  std::uint64_t word = claims_.load();
  for (;;) {
    if ((word >> 40) != (generation & 0xFFFFFF)) return -1;  // a later run's
    const std::uint64_t next = word & kField, tasks = (word >> 20) & kField;
    if (next >= tasks) return -1;
    if (claims_.compare_exchange_weak(word, word + 1)) return static_cast<int>(next);
  }
}

void ThreadPool::run(int n, const std::function<void(int)>& task) {
  if (n <= 0) return;
  if (in_task) {  // a run inside a task: its tasks in order, here; the first failure ends it
    for (int i = 0; i < n; ++i) task(i);
    return;
  }
  const std::lock_guard run_lock(run_mutex_);
  if (n == 1) {
    task_ = &task;
    run_task(0);
    task_ = nullptr;
    rethrow_failure();
    return;
  }
  if (n > kMaxTasks)
    throw Error(ErrorCode::InvalidArgument,
                std::to_string(n) + " threads asked for, at most " + std::to_string(kMaxTasks));
  std::uint64_t generation = 0;
  {
    std::lock_guard lock(mutex_);
    try {
      ensure_workers(n - 1);
    } catch (const std::exception& e) {
      throw Error(ErrorCode::ResourceExhausted,
                  std::string("cannot start worker threads: ") + e.what());
    }
    task_ = &task;
    active_ = n;
    pending_ = n;
    static const int cpus = usable_cpus();  // a system call per run otherwise
    spin_ = n <= cpus;
    generation = ++generation_;
    claims_ = claims_word(generation, n, 1);  // task 0 is the caller's
  }
  for (int i = 0; i + 1 < n; ++i) workers_[static_cast<std::size_t>(i)]->wake.notify_one();
  // The caller's task, then any a worker has not claimed yet: a worker the OS has not run
  // since the wake-up is not waited for.
  for (int index = 0; index >= 0; index = claim(static_cast<std::uint32_t>(generation))) {
    run_task(index);
    --pending_;
  }
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
    // After a run: poll for the next a while (a run that does not need this worker ends the
    // poll too, and it sleeps).
    if (spin_ && generation_ == seen && !stop_) {
      lock.unlock();
      spin_until([&] { return stop_.load() || generation_.load() != seen; });
      lock.lock();
    }
    wake.wait(lock, [&] { return stop_ || (generation_ != seen && index < active_); });
    if (stop_) return;
    seen = generation_;
    lock.unlock();
    int done = 0;
    for (int task; (task = claim(static_cast<std::uint32_t>(seen))) >= 0; ++done) run_task(task);
    lock.lock();
    // Under the lock: the caller checks pending_ under it before it sleeps.
    if (done > 0 && (pending_ -= done) == 0) done_.notify_one();
  }
}

ThreadPool& shared_pool() {
  static ThreadPool pool;
  return pool;
}

}  // namespace bnscope
