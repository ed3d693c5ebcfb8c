#pragma once
// Whole-tensor passes outside the cpu backend (the reference backend, input scans, archive
// checksums, sample generation) split into contiguous parts, one thread each. Parts are fixed
// by the item count and the thread count alone, so a caller that combines parts in index order,
// or gives every output element to exactly one part, gets the same result on any thread count.

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

// Calls body(part, begin, end) for the `parts` contiguous, near-equal ranges of [0, n), part 0 on
// the calling thread, and returns when all are done. An exception in any part is rethrown (the
// lowest part's) after every part has ended.
void parallel_for(std::int64_t n, int parts,
                  const std::function<void(int part, std::int64_t begin, std::int64_t end)>& body);

}  // namespace bnscope
