#pragma once
// The items of one of the cpu backend's passes (chunks, (block, chunk) pairs, channels), shared
// out among its tasks (thread_pool.h) so
// that a thread the OS does not run for a while holds up no more than the items it has claimed.
//
// Task t owns the t-th of n contiguous spans (near-equal, or given), as a static split would give
// it, and takes its own items first, in its walk's order, a quarter of its span at a time. Once
// its span is empty it takes half of what the span with the most left has, off the end that
// span's owner reaches last, and walks them in the owner's order (single items taken down a span
// walked upwards read channel planes backwards, which the prefetchers do not follow: 1.6x the
// time of a static split beside a busy process, 32x512x28x28 channels-first). On a quiet host
// items seldom change hands: a thread has claimed its last quarter before the other ends. Beside
// another busy process, or when the hypervisor takes a vCPU away, the threads that run do the
// share of the one that does not, but for the quarter it holds. Which thread takes an item
// changes no bit: every item writes results of its own (a chunk's partials, a channel's sums),
// combined afterwards in item order.
//
// A quarter, not one item, per claim: a claim is a locked compare-and-swap, which on x86 waits
// for the stores before it (the non-temporal dx stores, the partials) to complete. One per item
// ran 32x512x28x28 channels-first bfloat16 training (512 channel items) 1.07x the time of a
// static split and the reduce pass of 32x7x7x2048 float32 1.04-1.06x (Zen 5 VM).

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "tensor/parallel.h"

namespace bnscope {

class ItemQueue {
 public:
  // Items [0, items) for n tasks; each walks its own span first to last, or last first.
  ItemQueue(std::int64_t items, int n, bool last_first = false);
  // The same with the tasks' spans given: contiguous, in task order, from 0.
  ItemQueue(const std::vector<Span>& spans, bool last_first);

  // The next item for task t, -1 when every item has been taken. Only task t's thread calls it
  // with t.
  std::int64_t next(int t);
  // Task t's own span, as a static split would give it.
  Span span(int t) const { return spans_[static_cast<std::size_t>(t)]; }

  static constexpr int kClaimsPerSpan = 4;

 private:
  // One span: its items not yet claimed, [lo, hi), as lo << 32 | hi, which the owner and thieves
  // take from opposite ends of with a compare-and-swap; and the items task t has claimed, its own
  // or taken from others, [at, end), which only task t reads. A line each: one owner's takes
  // would otherwise slow another's.
  struct alignas(64) Range {
    std::atomic<std::uint64_t> lo_hi{0};
    std::int64_t at = 0, end = 0, batch = 1;
  };
  // Up to `count` items off one end of r: [first, first + taken).
  std::int64_t take(Range& r, bool from_hi, std::int64_t count, std::int64_t& first);

  std::vector<Span> spans_;
  bool last_first_;
  std::unique_ptr<Range[]> ranges_;
};

}  // namespace bnscope
