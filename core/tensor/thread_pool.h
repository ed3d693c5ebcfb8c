#pragma once
// The core's one pool of persistent worker threads (shared_pool()): the cpu backend's passes and
// every whole-tensor pass outside it (tensor/parallel.h: parallel_for, run_strides) run on it.
//
// Why this shape: a batch-norm pass over a ResNet layer takes 0.1-10 ms, so creating threads per
// call (tens of microseconds each) or per pass would be visible. Persistent workers parked on a
// condition variable cost a wake-up per pass, and under a hypervisor a wake-up is slow: on the
// Zen 5 VM a sleeping worker started its task 14 us after the caller (median) and the caller
// returned 20 us after the last task ended, 70 us of a two-pass run that takes 0.5-2 ms. So both
// sides first spin a while on the shared state, as OpenMP runtimes do, and sleep only after
// kSpin without news; a pass follows the one before within microseconds. Only while every task
// of a run has a CPU of its own: an oversubscribed spinner takes a core from a task.
//
// Each worker sleeps on a condition variable of its own, and a run wakes only the workers it
// needs. A pool that ran wider once (bnscope-cli bench checks each case against cpu-reference
// on every CPU, then times it on two) woke all its workers at every pass before, and each idle
// one went back to sleep, or into a spin, on the CPUs of the tasks that work: 2-thread runs of
// 32x7x7x2048 after one 8-thread run took about 3x the time on the 2-CPU Zen 5 VM.
//
// Work is split by the caller (task i of n always covers the same data: tensor/parallel.h's
// split_range, or the items of an ItemQueue that the tasks share), so partial sums are combined
// in a fixed order and results are bitwise reproducible from run to run. Which
// thread runs a task is not fixed: tasks are claimed, the caller's first, and the caller claims
// every task no worker has started by the time its own ends. Under a hypervisor or beside another
// busy process a worker may not get a CPU for milliseconds; waited for, it made 2-thread runs of
// 32x7x7x2048 channels-last training 3x slower than on a quiet host, and 1.5x slower than one
// thread (Zen 5 VM, one busy process beside). item_queue.h does the same for the items inside
// tasks: a thread that ends its own share takes items off the far end of another's.
//
// A task that throws (std::bad_alloc from a scratch vector, an Error) must not end the process
// (an escaping exception on a worker calls std::terminate) nor return while other tasks still
// use the caller's data: every task runs to its end, then run() rethrows the failure of the
// lowest task index, as it was thrown.
//
// One run at a time: a second caller waits for the run before it to end, and a run asked for
// from inside a task (a pass that calls parallel_for) runs its tasks in order on that thread.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace bnscope {

class ThreadPool {
 public:
  ThreadPool() = default;
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Calls task(i) once for each i in [0, n), task(0) on the calling thread, the others on
  // whichever of the run's n - 1 workers or the caller claims them first, and returns when all
  // are done. Tasks must not wait for one another (one thread may run several in turn).
  // Workers are started on first need and kept. Throws what the lowest failing task threw;
  // bnscope::Error(ResourceExhausted) when no worker thread can be started.
  void run(int n, const std::function<void(int)>& task);

  // How long a worker waits for the next run, and the caller for the workers, before sleeping.
  static constexpr std::chrono::microseconds kSpin{100};

 private:
  void ensure_workers(int count);
  void worker_loop(int index, std::condition_variable& wake);
  int claim(std::uint32_t generation);  // a task of that run no one has taken, else -1
  void run_task(int index);
  void rethrow_failure();

  struct Worker {
    std::condition_variable wake;
    std::thread thread;
  };
  std::vector<std::unique_ptr<Worker>> workers_;  // workers_[i] runs task i + 1
  std::mutex run_mutex_;                          // held by the caller for a whole run
  std::mutex mutex_;
  std::condition_variable done_;
  const std::function<void(int)>* task_ = nullptr;
  int active_ = 0;     // tasks in the current generation, caller included
  bool spin_ = false;  // the current run's tasks each have a CPU
  // Written under mutex_; atomic so that the spinning side can read them without it.
  std::atomic<int> pending_{0};  // tasks of the current generation not yet done
  std::atomic<std::uint64_t> generation_{0};
  // The current run's claims: its generation (low 24 bits) << 40 | tasks << 20 | next task.
  std::atomic<std::uint64_t> claims_{0};
  static constexpr int kMaxTasks = (1 << 20) - 1;
  std::atomic<bool> stop_{false};
  std::exception_ptr failure_;  // of the lowest failing task index in this generation
  int failed_index_ = -1;
};

// The process's pool (created at first use, its workers on first need).
ThreadPool& shared_pool();

}  // namespace bnscope
