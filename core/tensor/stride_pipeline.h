#pragma once
// A pass over a long range made in strides, where each stride has a parallel part (any split
// gives the same figures) and an in-order part (made on one thread, stride after stride). The
// in-order part of stride s runs on the calling thread while the other threads already take
// stride s + 1's pieces, and the caller joins in for what is left of them: no core waits for
// the in-order part. Each stride is one run of the core's pool (thread_pool.h).

#include <cstdint>
#include <functional>

namespace bnscope {

struct StridePass {
  std::int64_t strides = 0;
  // Pieces of stride s, each taken by whichever thread is free first.
  std::function<std::int64_t(std::int64_t s)> pieces;
  // Piece p of stride s on thread `thread` (0: the caller; < threads).
  std::function<void(int thread, std::int64_t s, std::int64_t p)> piece;
  // The in-order part of stride s, on the caller, once every piece of stride s has ended; the
  // pieces of stride s + 1 may run beside it (its inputs must be kept apart from theirs).
  std::function<void(std::int64_t s)> after;
};

// Runs the pass on `threads` threads (>= 1; 1: all on the caller, in order). An exception in a
// piece or in `after` is rethrown once every thread has stopped.
void run_strides(const StridePass& pass, int threads);

}  // namespace bnscope
