// Pass structure: reduce, then write (two sweeps over x and dy, one over dx).
//
// Training-mode grads outside the planes case (grad_planes.cpp): dx needs Σdy and Σdy·(x-μ) of
// the whole channel, so pass 1 reads x and dy into per-chunk partials (threads start on
// contiguous chunk ranges and take over the ends of each other's, item_queue.h; partials are
// combined in chunk order), and pass 2 reads x and dy again to write
// dx. With C channels side by side in every NHWC row no channel's data is cache-resident between
// the passes once x+dy exceeds the caches, so this costs 5 tensor passes (20 B/element f32);
// non-temporal stores on dx avoid a sixth (the read-for-ownership). The write pass walks each
// thread's span backwards so the last ~L2 of what the reduce pass read is re-read from cache,
// which matters for the mid-sized layers (tens of MB) only; over rows a trial of whole calls may
// walk it forwards instead (grad_ops.cpp, walk_trial.h: write_walks). Planes are reduced
// channel-major so each thread streams contiguous runs rather than C interleaved 1 KiB pieces. The
// forward ops reuse both passes for their statistics and y.

#include <algorithm>
#include <type_traits>

#include "backends/cpu/block_kernels.h"
#include "backends/cpu/item_queue.h"
#include "backends/cpu/passes.h"

namespace bnscope::cpu {

namespace {

// Calls f with the kind of sum as a compile-time constant (the reduce loops are templates on it).
template <class F>
void by_sum(Sum kind, F&& f) {
  if (kind == Sum::Grad)
    f(std::integral_constant<Sum, Sum::Grad>{});
  else
    f(std::integral_constant<Sum, Sum::Moments>{});
}

// Blocks layout: (block, chunk) items, block-major, so a thread re-tiles its coefficients only
// when it reaches the next block.
template <class T>
void reduce_blocks(const Exec& ex, const Geometry& g, Sum kind, const T* a, const T* b,
                   const std::vector<Acc<T>>& center, Partials<Acc<T>>& parts) {
  using A = Acc<T>;
  const std::int64_t items = g.block_count() * g.chunks;
  const int n = threads_for(ex, items);
  ItemQueue queue(items, n);
  ex.pool->run(n, [&](int t) {
    LaneArrays<A> acc(g.block_c * g.inner, 2);
    LineVector<A> mB;
    A* acc0 = acc[0];
    A* acc1 = acc[1];
    std::int64_t tiled = -1;
    for (std::int64_t item; (item = queue.next(t)) >= 0;) {
      const std::int64_t blk = item / g.chunks, k = item % g.chunks;
      if (blk != tiled) tile_block(center, g, blk, mB);
      tiled = blk;
      A* p0 = parts.s0 + k * g.channels;
      A* p1 = parts.s1 + k * g.channels;
      by_sum(kind, [&](auto S) {
        block_reduce<decltype(S)::value, false, T>(g, a, b, nullptr, blk, k, mB.data(), nullptr,
                                                   false, acc0, acc1, p0, p1);
      });
    }
  });
}

template <class T>
void write_blocks(const Exec& ex, const Geometry& g, const T* a, const T* b, T* out,
                  const Affine<Acc<T>>& per_channel) {
  const std::int64_t items = g.block_count() * g.chunks;
  const int n = threads_for(ex, items);
  ItemQueue queue(items, n, true);  // last first, as in write_pass
  ex.pool->run(n, [&](int t) {
    BlockCoefs<Acc<T>> coefs;
    for (std::int64_t item; (item = queue.next(t)) >= 0;) {
      const std::int64_t blk = item / g.chunks, k = item % g.chunks;
      block_write<T>(g, a, b, out, blk, k, coefs.of(per_channel, g, blk), ex.nt);
    }
    stream_fence();
  });
}

// Thread t's rows of the write pass over rows, of n threads: an equal share of the whole
// accumulator groups (so shares start where chunks may, rows of a group aligned alike), the
// rows after the last group to the last thread. No sums, so no chunk need stay whole: threads
// sharing 49 chunks had one more chunk than the other.
Span write_share(const Geometry& g, int n, int t) {
  if (!g.rows()) return {0, 0};
  const Span groups = split_range(g.m / g.group, n, t);
  return {groups.begin * g.group, t == n - 1 ? g.m : groups.end * g.group};
}

// The write pass's items over rows: each thread's share cut at chunk boundaries (`rows`), the
// shares in thread order (`spans`: which items are whose).
struct WritePieces {
  std::vector<Span> rows, spans;
};
WritePieces write_pieces(const Geometry& g, int n) {
  WritePieces w;
  for (int t = 0; t < n; ++t) {
    const Span share = write_share(g, n, t);
    const std::int64_t first = static_cast<std::int64_t>(w.rows.size());
    for (std::int64_t r = share.begin; r < share.end;) {
      const std::int64_t end = std::min(share.end, g.chunk_end(r / g.chunk_m));
      w.rows.push_back({r, end});
      r = end;
    }
    w.spans.push_back({first, static_cast<std::int64_t>(w.rows.size())});
  }
  return w;
}

// Thread t's walk of its chunks of the rows reduce pass (walk_trial.h: pairs or rows): timed by
// the first thread only, and only where rows go through the accumulator rows in L1 (`rows_walk`:
// not in tiles), the one walk that pairs change (not rows held in registers).
template <class T>
WalkTrial pair_trial(const Geometry& g, const Span& span, int t, bool rows_walk) {
  const bool in_l1 = simd::kVector<T> && rows_walk &&
                     simd::register_row_vectors(g.lanes(), simd::vector_bytes() / 4) == 0;
  return WalkTrial(rows_walk_key<T>(g), span.end - span.begin, t == 0 && in_l1, pair_walks());
}

// Thread t's walk of its chunks of a rows pass with or without the software prefetch
// (walk_trial.h: prefetch_walks), timed by the first thread only, and only where the vector loop
// prefetches per vector (not row tiles, which prefetch the next tile instead). `window`: the
// reduce pass times its pair trial in the middle window, this one in the window before it.
template <class T>
WalkTrial prefetch_trial(const Geometry& g, const Span& span, int t, bool per_vector, RowsPass pass,
                         int window) {
  return WalkTrial(rows_walk_key<T>(g), span.end - span.begin,
                   t == 0 && simd::kVector<T> && per_vector, prefetch_walks(pass),
                   WalkTrial::kMinChunks, window);
}

// Task t's chunks of the rows reduce pass, walked in row tiles of `tile` rows (0: one row at a
// time, in pairs or not, with the prefetch or not, as their trials say).
template <class T>
void rows_reduce_task(const Geometry& g, Sum kind, const T* a, const T* b,
                      const LineVector<Acc<T>>& mL, ItemQueue& queue, int t, std::int64_t tile,
                      bool rows_walk, Partials<Acc<T>>& parts) {
  using A = Acc<T>;
  LaneArrays<A> lanes(g.lanes(), 3);
  A* acc0 = lanes[0];
  A* acc1 = lanes[1];
  const A* m_t = lanes.copy(2, mL);
  const Span span = queue.span(t);
  WalkTrial trial = pair_trial<T>(g, span, t, rows_walk);
  WalkTrial ahead = prefetch_trial<T>(g, span, t, rows_walk, RowsPass::Reduce, 1);
  for (std::int64_t k; (k = queue.next(t)) >= 0;) {
    A* p0 = parts.s0 + k * g.channels;
    A* p1 = parts.s1 + k * g.channels;
    const std::int64_t m0 = g.chunk_begin(k), m1 = g.chunk_end(k);
    ahead.walk([&](bool prefetch) {
      trial.walk([&](bool pairs) {
        by_sum(kind, [&](auto S) {
          rows_reduce<decltype(S)::value, false, T>(g, a, b, nullptr, m0, m1, m_t, nullptr, acc0,
                                                    acc1, nullptr, p0, p1, tile, pairs, prefetch);
        });
      });
    });
  }
}

}  // namespace

template <class T>
Totals reduce_pass(const Exec& ex, const Geometry& g, Sum kind, const T* a, const T* b,
                   const std::vector<Acc<T>>& center) {
  using A = Acc<T>;
  Partials<A> parts(g, *ex.scratch);
  if (g.blocks()) {
    reduce_blocks<T>(ex, g, kind, a, b, center, parts);
    return combine(ex, g, parts);
  }
  const LineVector<A> mL = tile(center, g);
  // Rows: threads take chunk ranges. Planes: (channel, chunk) items, channel-major, so each
  // thread streams contiguous runs. Every partial is computed alone: no order changes a bit.
  const std::int64_t items = g.rows() ? g.chunks : g.chunks * g.channels;
  const int n = threads_for(ex, items);
  // Rows too wide for L1 walk tiles or rows, whichever this host runs the training grads' pass
  // faster over whole passes (walk_trial.h: reduce_tile_walks); the forward statistics, which
  // read x alone, take the walk decided there. The pairs and prefetch trials, which only rows
  // walked one by one can take, wait for rows to win (or be forced).
  const WalkKey key = rows_walk_key<T>(g);
  const std::int64_t tile = g.rows() ? row_tile(g.lanes(), sizeof(T), false, key.past_llc) : 0;
  PassTrial walk(
      key, kind == Sum::Grad && simd::kVector<T> && tile > 0 && items >= n * kMinPassTrialChunks,
      reduce_tile_walks());
  const bool rows_walk = tile == 0 || walk.known() == false;
  walk.run([&](bool tiles) {
    ItemQueue queue(items, n);
    ex.pool->run(n, [&](int t) {
      if (g.rows())
        return rows_reduce_task<T>(g, kind, a, b, mL, queue, t, tiles ? tile : 0, rows_walk, parts);
      for (std::int64_t item; (item = queue.next(t)) >= 0;) {
        const std::int64_t c = item / g.chunks, k = item % g.chunks;
        A& p0 = parts.s0[k * g.channels + c];
        A& p1 = parts.s1[k * g.channels + c];
        const std::int64_t m0 = g.chunk_begin(k), m1 = g.chunk_end(k);
        by_sum(kind, [&](auto S) {
          plane_reduce<decltype(S)::value, false, T>(g, a, b, nullptr, m0, m1, c, center[c], A(0),
                                                     nullptr, p0, p1);
        });
      }
    });
  });
  return combine(ex, g, parts);
}

template <class T>
void write_pass(const Exec& ex, const Geometry& g, const T* a, const T* b, T* out,
                const Affine<Acc<T>>& per_channel, bool last_first) {
  using A = Acc<T>;
  if (g.blocks()) {
    write_blocks<T>(ex, g, a, b, out, per_channel);
    return;
  }
  Affine<A> f = per_channel;
  if (g.rows()) {
    const std::int64_t width = write_lanes(g, sizeof(T));
    f.p = tile(per_channel.p, width);
    f.q = tile(per_channel.q, width);
    f.m = tile(per_channel.m, width);
    f.r = tile(per_channel.r, width);
  }
  const std::int64_t items = g.rows() ? g.chunks : g.chunks * g.channels;
  const int n = threads_for(ex, items);
  // Same items as the reduce pass, by default last first: what it read last is still in this
  // core's caches. Rows may walk first to last (write_walks).
  const bool forward = g.rows() && !last_first;
  WritePieces pieces = g.rows() ? write_pieces(g, n) : WritePieces();
  ItemQueue queue = g.rows() ? ItemQueue(pieces.spans, !forward) : ItemQueue(items, n, true);
  const std::vector<Span> piece_rows = std::move(pieces.rows);
  ex.pool->run(n, [&](int t) {
    std::vector<T> tmp(ex.nt ? static_cast<std::size_t>(kBlock) : 0);
    T* staging = ex.nt ? tmp.data() : nullptr;
    WalkTrial ahead = prefetch_trial<T>(g, queue.span(t), t, g.rows(), RowsPass::Write, 0);
    for (std::int64_t item; (item = queue.next(t)) >= 0;) {
      if (g.rows()) {
        const Span rows = piece_rows[static_cast<std::size_t>(item)];
        ahead.walk([&](bool prefetch) {
          rows_write<T>(g, a, b, out, rows.begin, rows.end, f, staging, prefetch);
        });
      } else {
        const std::int64_t c = item / g.chunks, k = item % g.chunks;
        plane_write<T>(g, a, b, out, g.chunk_begin(k), g.chunk_end(k), c, f, staging);
      }
    }
    stream_fence();
  });
}

#define BNSCOPE_INSTANTIATE(T)                                                          \
  template Totals reduce_pass<T>(const Exec&, const Geometry&, Sum, const T*, const T*, \
                                 const std::vector<Acc<T>>&);                           \
  template void write_pass<T>(const Exec&, const Geometry&, const T*, const T*, T*,     \
                              const Affine<Acc<T>>&, bool);
BNSCOPE_CPU_ELEMENT_TYPES(BNSCOPE_INSTANTIATE)
#undef BNSCOPE_INSTANTIATE

}  // namespace bnscope::cpu
