#include "tensor/parallel.h"

#include <algorithm>
#include <thread>

#include "tensor/thread_pool.h"

#if defined(__linux__)
#include <sched.h>
#endif

namespace bnscope {

int usable_cpus() {
#if defined(__linux__)
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
#endif
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

int parallel_parts(std::int64_t n, std::int64_t min_per_part, int threads) {
  threads = resolve_threads(threads);
  const std::int64_t by_size = n / std::max<std::int64_t>(min_per_part, 1);
  return static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(threads, by_size)));
}

int channel_parts(std::int64_t channels, std::int64_t elements, int threads) {
  if (threads > 0) return parallel_parts(channels, 1, threads);
  return parallel_parts(channels, 1, parallel_parts(elements, std::int64_t{1} << 18));
}

void parallel_for(std::int64_t n, int parts,
                  const std::function<void(int, std::int64_t, std::int64_t)>& body) {
  parts = static_cast<int>(std::clamp<std::int64_t>(parts, 1, std::max<std::int64_t>(n, 1)));
  if (parts == 1) return body(0, 0, n);
  shared_pool().run(parts, [&](int k) {
    const Span s = split_range(n, parts, k);
    body(k, s.begin, s.end);
  });
}

}  // namespace bnscope
