#pragma once
// The core's one way to split work: n items into contiguous, near-equal parts (split_range),
// fixed by the item count and the part count alone, run as the tasks of the one thread pool
// (thread_pool.h). Whole-tensor passes (the reference backend, input scans, archive checksums,
// sample generation) take a part each (parallel_for); the cpu backend's passes share their
// parts' items (item_queue.h), so a thread the OS does not run holds up only what it claimed.
// A caller that combines parts in index order, or gives every output element to exactly one
// part, gets the same result on any thread count.

#include <cstdint>
#include <functional>

namespace bnscope {

// CPUs this process may run on: its affinity mask (taskset, a container's cpuset) where the OS
// reports one, else the hardware threads. "Every thread" means these: a process pinned to 2 of
// 16 CPUs that started 16 threads would run 8 to a CPU.
int usable_cpus();

// A thread count asked for: `threads`, or every usable CPU when it is 0 or less.
inline int resolve_threads(int threads) {
  return threads > 0 ? threads : usable_cpus();
}

// Threads a pass over n items uses: `threads` (<= 0: every usable CPU), at most one per
// min_per_part items, at least 1.
int parallel_parts(std::int64_t n, std::int64_t min_per_part, int threads = 0);

// Threads a pass over `channels` channel ranges of `elements` elements in all uses: the `threads`
// asked for (one channel each at least), or when 0, every usable CPU once each has a few
// hundred thousand elements.
int channel_parts(std::int64_t channels, std::int64_t elements, int threads);

// [begin, end) of part `index` when n items are split into `parts` contiguous, near-equal parts.
struct Span {
  std::int64_t begin, end;
};
inline Span split_range(std::int64_t n, int parts, int index) {
  return {n * index / parts, n * (index + 1) / parts};
}

// Calls body(part, begin, end) for the `parts` ranges split_range gives of [0, n), as tasks of
// shared_pool() (part 0 on the calling thread, the others on whichever thread is free first),
// and returns when all are done. An exception in any part is rethrown (the lowest part's) after
// every part has ended.
void parallel_for(std::int64_t n, int parts,
                  const std::function<void(int part, std::int64_t begin, std::int64_t end)>& body);

}  // namespace bnscope
