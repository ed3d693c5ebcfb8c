#include "tensor/stride_pipeline.h"

#include <atomic>
#include <barrier>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace bnscope {

namespace {

void run_alone(const StridePass& pass) {
  for (std::int64_t s = 0; s < pass.strides; ++s) {
    const std::int64_t n = pass.pieces(s);
    for (std::int64_t p = 0; p < n; ++p) pass.piece(0, s, p);
    pass.after(s);
  }
}

}  // namespace

void run_strides(const StridePass& pass, int threads) {
  if (pass.strides <= 0) return;
  if (threads <= 1 || pass.strides == 1) {
    run_alone(pass);
    return;
  }
  // Stride s's pieces are handed out from next[s % 2]; a phase of the barrier ends each stride.
  std::atomic<std::int64_t> next[2];
  next[0] = 0;
  next[1] = 0;
  std::atomic<bool> stop{false};
  std::exception_ptr failed;
  std::mutex failed_mutex;
  const auto fail_with = [&](std::exception_ptr e) {
    std::lock_guard<std::mutex> lock(failed_mutex);
    if (!failed) failed = e;
    stop = true;
  };
  const auto take_pieces = [&](int thread, std::int64_t s) {
    const std::int64_t n = pass.pieces(s);
    try {
      for (std::int64_t p; !stop && (p = next[s % 2]++) < n;) pass.piece(thread, s, p);
    } catch (...) {
      fail_with(std::current_exception());
    }
  };
  std::barrier sync(threads);
  // Workers: stride s, then wait for every thread to end it. The caller ends stride s - 1's
  // in-order part before it takes stride s's pieces.
  const auto worker = [&](int thread) {
    for (std::int64_t s = 0; s < pass.strides; ++s) {
      take_pieces(thread, s);
      sync.arrive_and_wait();
    }
  };
  std::vector<std::thread> workers;
  try {
    for (int t = 1; t < threads; ++t) workers.emplace_back(worker, t);
  } catch (...) {
    // No more threads to be had: the barrier stops waiting for those that did not start.
    for (int t = static_cast<int>(workers.size()) + 1; t < threads; ++t) sync.arrive_and_drop();
  }
  for (std::int64_t s = 0; s < pass.strides; ++s) {
    if (s > 0) {
      try {
        if (!stop) pass.after(s - 1);
      } catch (...) {
        fail_with(std::current_exception());
      }
    }
    take_pieces(0, s);
    // The pieces of stride s + 1 come from the other counter, reset before anyone takes them.
    next[(s + 1) % 2] = 0;
    sync.arrive_and_wait();
  }
  try {
    if (!stop) pass.after(pass.strides - 1);
  } catch (...) {
    fail_with(std::current_exception());
  }
  for (std::thread& w : workers) w.join();
  if (failed) std::rethrow_exception(failed);
}

}  // namespace bnscope
