#include "ipc/segment_fill.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>

#include "tensor/parallel.h"
#include "tensor/stream_bytes.h"

namespace bnscope::ipc {
namespace {

// Slices of a copy into a written segment: enough for every thread to have a few, large enough
// that claiming one costs nothing beside it.
constexpr std::size_t kSlice = std::size_t{8} << 20;
// Below this a copy stays in the cache (memcpy): the stream's store buffers pay only when the
// bytes would not stay there anyway.
constexpr std::size_t kStreamFrom = std::size_t{1} << 20;
constexpr int kMaxThreads = 8;  // the copies are memory bandwidth: more threads only queue

struct Task {
  const SegmentFill* fill;
  std::size_t begin, end;
};

}  // namespace

void stream_copy(void* dst, const void* src, std::size_t n) {
  if (n >= kStreamFrom)
    stream_bytes(dst, src, n);
  else
    std::memcpy(dst, src, n);
}

void fill_segments(const std::vector<SegmentFill>& fills, int threads) {
  std::vector<Task> tasks;
  for (const SegmentFill& f : fills) {
    if (f.bytes == 0) continue;
    if (f.fresh || f.bytes < 2 * kSlice) {
      tasks.push_back({&f, 0, f.bytes});
      continue;
    }
    for (std::size_t at = 0; at < f.bytes; at += kSlice)
      tasks.push_back({&f, at, std::min(f.bytes, at + kSlice)});
  }
  // Largest first: the one long write of a fresh segment starts at once, slices fill around it.
  std::stable_sort(tasks.begin(), tasks.end(),
                   [](const Task& a, const Task& b) { return a.end - a.begin > b.end - b.begin; });
  const int parts = std::max(
      1, std::min({resolve_threads(threads), kMaxThreads, static_cast<int>(tasks.size())}));
  std::atomic<std::size_t> next{0};
  parallel_for(parts, parts, [&](int, std::int64_t, std::int64_t) {
    for (std::size_t i; (i = next.fetch_add(1)) < tasks.size();) {
      const Task& t = tasks[i];
      const auto* src = static_cast<const std::byte*>(t.fill->src) + t.begin;
      if (t.fill->fresh)
        t.fill->segment->write(t.begin, src, t.end - t.begin);
      else
        stream_copy(t.fill->segment->data() + t.begin, src, t.end - t.begin);
    }
  });
}

}  // namespace bnscope::ipc
