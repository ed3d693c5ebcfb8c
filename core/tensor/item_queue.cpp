#include "tensor/item_queue.h"

#include <algorithm>
#include <string>

#include "tensor/error.h"

namespace bnscope {

namespace {

constexpr std::int64_t kMaxItems = std::int64_t{1} << 31;

std::uint64_t pack(std::int64_t lo, std::int64_t hi) {
  return static_cast<std::uint64_t>(lo) << 32 | static_cast<std::uint64_t>(hi);
}

std::vector<Span> equal_spans(std::int64_t items, int n) {
  std::vector<Span> spans;
  for (int t = 0; t < n; ++t) spans.push_back(split_range(items, n, t));
  return spans;
}

}  // namespace

ItemQueue::ItemQueue(std::int64_t items, int n, bool last_first)
    : ItemQueue(equal_spans(items, std::max(n, 1)), last_first) {}

ItemQueue::ItemQueue(const std::vector<Span>& spans, bool last_first)
    : spans_(spans), last_first_(last_first) {
  const std::int64_t items = spans.empty() ? 0 : spans.back().end;
  if (spans.empty() || items >= kMaxItems)
    throw Error(ErrorCode::Internal, "cpu backend: " + std::to_string(items) + " items for " +
                                         std::to_string(spans.size()) + " threads");
  ranges_ = std::make_unique<Range[]>(spans.size());
  for (std::size_t t = 0; t < spans.size(); ++t) {
    Range& r = ranges_[t];
    r.lo_hi.store(pack(spans[t].begin, spans[t].end), std::memory_order_relaxed);
    const std::int64_t length = spans[t].end - spans[t].begin;
    r.batch = std::max<std::int64_t>(1, (length + kClaimsPerSpan - 1) / kClaimsPerSpan);
  }
}

std::int64_t ItemQueue::take(Range& r, bool from_hi, std::int64_t count, std::int64_t& first) {
  std::uint64_t word = r.lo_hi.load(std::memory_order_relaxed);
  for (;;) {
    const std::int64_t lo = static_cast<std::int64_t>(word >> 32);
    const std::int64_t hi = static_cast<std::int64_t>(word & 0xFFFFFFFFu);
    const std::int64_t n = std::min(count, hi - lo);
    if (n <= 0) return 0;
    const std::uint64_t rest = from_hi ? pack(lo, hi - n) : pack(lo + n, hi);
    // Relaxed: the items' data is the caller's, published before the run and read after it
    // through the pool's own synchronization; the counter only has to hand each item out once.
    if (r.lo_hi.compare_exchange_weak(word, rest, std::memory_order_relaxed)) {
      first = from_hi ? hi - n : lo;
      return n;
    }
  }
}

std::int64_t ItemQueue::next(int t) {
  Range& own = ranges_[static_cast<std::size_t>(t)];
  if (own.at == own.end) {
    std::int64_t first = 0;
    const std::int64_t n = take(own, last_first_, own.batch, first);
    own.at = first;
    own.end = first + n;
  }
  for (;;) {
    if (own.at < own.end) return last_first_ ? --own.end : own.at++;
    // Half of what the span with the most left has, from the end its owner reaches last, walked
    // in the owner's order (item_queue.h: single items taken down a forward span read channel
    // planes backwards).
    int victim = -1;
    std::int64_t most = 0;
    for (std::size_t v = 0; v < spans_.size(); ++v) {
      const std::uint64_t word = ranges_[v].lo_hi.load(std::memory_order_relaxed);
      const std::int64_t left =
          static_cast<std::int64_t>(word & 0xFFFFFFFFu) - static_cast<std::int64_t>(word >> 32);
      if (left > most) {
        most = left;
        victim = static_cast<int>(v);
      }
    }
    if (victim < 0) return -1;
    std::int64_t first = 0;
    const std::int64_t n = take(ranges_[static_cast<std::size_t>(victim)], !last_first_,
                                std::max<std::int64_t>(1, most / 2), first);
    own.at = first;
    own.end = first + n;
  }
}

}  // namespace bnscope
