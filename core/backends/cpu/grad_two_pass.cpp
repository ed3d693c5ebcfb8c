// Pass structures: reduce, then write; and the single sweep (single_pass: sums and dx together).
//
// Training grads outside the planes case need the whole channel's Σdy and Σdy·(x-μ) before dx:
// the reduce pass reads x and dy into per-chunk partials (threads take contiguous chunk ranges
// and then the ends of each other's: tensor/item_queue.h), the write pass reads them again for
// dx, 5 tensor passes in all. The write pass walks each thread's span backwards, so what the
// reduce pass read last is re-read from the caches. Planes are reduced channel-major, so each
// thread streams contiguous runs. The forward ops use both passes for their statistics and y.

#include <algorithm>
#include <type_traits>

#include "backends/cpu/block_kernels.h"
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
// when it reaches the next block. With W, also out = p*b (the single sweep, scale [C]).
template <bool W, class T>
void reduce_blocks(const Exec& ex, const Geometry& g, Sum kind, const T* a, const T* b, T* out,
                   const std::vector<Acc<T>>& center, const std::vector<Acc<T>>* scale,
                   Partials<Acc<T>>& parts) {
  using A = Acc<T>;
  const std::int64_t items = g.block_count() * g.chunks;
  const int n = threads_for(ex, items);
  ItemQueue queue(items, n);
  ex.pool->run(n, [&](int t) {
    LaneArrays<A> acc(g.block_c * g.inner, 2);
    LineVector<A> mB, pB;
    A* acc0 = acc[0];
    A* acc1 = acc[1];
    std::int64_t tiled = -1;
    for (std::int64_t item; (item = queue.next(t)) >= 0;) {
      const std::int64_t blk = item / g.chunks, k = item % g.chunks;
      if (blk != tiled) {
        tile_block(center, g, blk, mB);
        if constexpr (W) tile_block(*scale, g, blk, pB);
        tiled = blk;
      }
      A* p0 = parts.s0 + k * g.channels;
      A* p1 = parts.s1 + k * g.channels;
      by_sum(kind, [&](auto S) {
        block_reduce<decltype(S)::value, W, T>(g, a, b, out, blk, k, mB.data(), pB.data(),
                                               W && ex.nt, acc0, acc1, p0, p1);
      });
    }
    if constexpr (W) stream_fence();
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
// rows after the last group to the last thread. No sums, so no chunk need stay whole.
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

// Task t's chunks of the rows reduce pass, walked as the planner says (planner.h: RowsWalk).
// With W, also out = p*b from the tiled scales pL, non-temporal where nt.
template <bool W, class T>
void rows_reduce_task(const Geometry& g, Sum kind, const T* a, const T* b, T* out,
                      const LineVector<Acc<T>>& mL, const LineVector<Acc<T>>& pL, ItemQueue& queue,
                      int t, const RowsWalk& walk, bool nt, Partials<Acc<T>>& parts) {
  using A = Acc<T>;
  LaneArrays<A> lanes(g.lanes(), W ? 4 : 3);
  A* acc0 = lanes[0];
  A* acc1 = lanes[1];
  const A* m_t = lanes.copy(2, mL);
  const A* p_t = W ? lanes.copy(3, pL) : nullptr;
  for (std::int64_t k; (k = queue.next(t)) >= 0;) {
    A* p0 = parts.s0 + k * g.channels;
    A* p1 = parts.s1 + k * g.channels;
    const std::int64_t m0 = g.chunk_begin(k), m1 = g.chunk_end(k);
    by_sum(kind, [&](auto S) {
      rows_reduce<decltype(S)::value, W, T>(g, a, b, out, m0, m1, m_t, p_t, acc0, acc1, nt, p0, p1,
                                            walk.tile, walk.pairs, walk.prefetch);
    });
  }
}

// The reduce pass and, with W, the single sweep (sums and out = scale*b in one loop: freeze-mode
// fused grads and BatchNormWithGlobalNormalizationGrad, whose dx needs no reduction; 3 tensor
// passes, dx non-temporal when large). Same chunks and partials either way, so the sums do not
// depend on the thread count or on which of the two ran.
template <bool W, class T>
Totals reduce_sweep(const Exec& ex, const Geometry& g, Sum kind, const T* a, const T* b, T* out,
                    const std::vector<Acc<T>>& center, const std::vector<Acc<T>>* scale) {
  using A = Acc<T>;
  Partials<A> parts(g, *ex.scratch);
  if (g.blocks()) {
    reduce_blocks<W, T>(ex, g, kind, a, b, out, center, scale, parts);
    return combine(ex, g, parts);
  }
  const LineVector<A> mL = tile(center, g);
  const LineVector<A> pL = W ? tile(*scale, g) : LineVector<A>();
  // Rows: threads take chunk ranges. Planes: (channel, chunk) items, channel-major, so each
  // thread streams contiguous runs. Every partial is computed alone: no order changes a bit.
  const std::int64_t items = g.rows() ? g.chunks : g.chunks * g.channels;
  const int n = threads_for(ex, items);
  const RowsWalk walk = rows_walk(ex.host, g.lanes(), sizeof(T), read_bytes(g, sizeof(T)), W);
  ItemQueue queue(items, n);
  ex.pool->run(n, [&](int t) {
    if (g.rows()) {
      rows_reduce_task<W, T>(g, kind, a, b, out, mL, pL, queue, t, walk, W && ex.nt, parts);
    } else {
      for (std::int64_t item; (item = queue.next(t)) >= 0;) {
        const std::int64_t c = item / g.chunks, k = item % g.chunks;
        A& p0 = parts.s0[k * g.channels + c];
        A& p1 = parts.s1[k * g.channels + c];
        const std::int64_t m0 = g.chunk_begin(k), m1 = g.chunk_end(k);
        const A pc = W ? (*scale)[c] : A(0);
        by_sum(kind, [&](auto S) {
          plane_reduce<decltype(S)::value, W, T>(g, a, b, out, m0, m1, c, center[c], pc, W && ex.nt,
                                                 p0, p1);
        });
      }
    }
    if constexpr (W) stream_fence();
  });
  return combine(ex, g, parts);
}

}  // namespace

template <class T>
Totals reduce_pass(const Exec& ex, const Geometry& g, Sum kind, const T* a, const T* b,
                   const std::vector<Acc<T>>& center) {
  return reduce_sweep<false, T>(ex, g, kind, a, b, nullptr, center, nullptr);
}

template <class T>
Totals single_pass(const Exec& ex, const Geometry& g, const T* x, const T* dy, T* dx,
                   const std::vector<Acc<T>>& mean, const std::vector<Acc<T>>& p) {
  return reduce_sweep<true, T>(ex, g, Sum::Grad, x, dy, dx, mean, &p);
}

template <class T>
void write_pass(const Exec& ex, const Geometry& g, const T* a, const T* b, T* out,
                const Affine<Acc<T>>& per_channel) {
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
  // Same items as the reduce pass, last first: what it read last is still in this core's
  // caches. Over rows no rule from the host's sizes tells which walk is faster, and only last
  // first rereads a single call's end from the caches (docs/measurements/cpu-kernel-notes.md).
  WritePieces pieces = g.rows() ? write_pieces(g, n) : WritePieces();
  ItemQueue queue = g.rows() ? ItemQueue(pieces.spans, true) : ItemQueue(items, n, true);
  const std::vector<Span> piece_rows = std::move(pieces.rows);
  const bool prefetch = write_prefetch(ex.host, sizeof(T));
  ex.pool->run(n, [&](int t) {
    for (std::int64_t item; (item = queue.next(t)) >= 0;) {
      if (g.rows()) {
        const Span rows = piece_rows[static_cast<std::size_t>(item)];
        rows_write<T>(g, a, b, out, rows.begin, rows.end, f, ex.nt, prefetch);
      } else {
        const std::int64_t c = item / g.chunks, k = item % g.chunks;
        plane_write<T>(g, a, b, out, g.chunk_begin(k), g.chunk_end(k), c, f, ex.nt);
      }
    }
    stream_fence();
  });
}

#define BNSCOPE_INSTANTIATE(T)                                                            \
  template Totals reduce_pass<T>(const Exec&, const Geometry&, Sum, const T*, const T*,   \
                                 const std::vector<Acc<T>>&);                             \
  template Totals single_pass<T>(const Exec&, const Geometry&, const T*, const T*, T*,    \
                                 const std::vector<Acc<T>>&, const std::vector<Acc<T>>&); \
  template void write_pass<T>(const Exec&, const Geometry&, const T*, const T*, T*,       \
                              const Affine<Acc<T>>&);
BNSCOPE_CPU_ELEMENT_TYPES(BNSCOPE_INSTANTIATE)
#undef BNSCOPE_INSTANTIATE

}  // namespace bnscope::cpu
