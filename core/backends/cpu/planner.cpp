#include "backends/cpu/planner.h"

#include <algorithm>

#include "backends/cpu/kernels.h"
#include "backends/cpu/simd.h"

namespace bnscope::cpu {

namespace {

constexpr std::int64_t kWide = 64;  // bytes of an AVX-512 vector

// Bytes of the four lane arrays a row at a time keeps in L1: two accumulator rows, the centres
// and the scales (kernels.h: LaneArrays), floats whatever the element type.
std::size_t lane_arrays(std::int64_t lanes) {
  return 4 * sizeof(float) * static_cast<std::size_t>(std::max<std::int64_t>(lanes, 1));
}

// Rows per tile where rows wide for L1 may be walked in tiles (simd_kernels.cpp:
// RowsSweepTiled), else 0. A row at a time keeps the lane arrays in L1 beside the streaming
// inputs; from half of L1 up the inputs and their prefetches push them out and their per-row
// stores bound the loop: on the Zen 4 tiles ran the 2048-lane single sweep 1.15-1.35x and
// 16-bit reductions of 1024 lanes 1.2-1.45x faster. A reduction of 4-byte inputs stores half a
// byte of accumulators per byte read, and there a row at a time ran as fast until the lane
// arrays alone fill L1. 16-bit sums read from memory pay for rows from a line up once a
// tile's channel blocks are a line wide (Zen 1: 0.89-0.97x the time of the faster row walk).
// A tile is its x and dy and the next tile's, prefetched while it is walked, in a quarter of
// what a core keeps in its L2, so the core's other traffic does not push the next tile out.
std::int64_t row_tile(const Host& h, std::int64_t lanes, std::size_t element_size, bool writes,
                      bool past_llc) {
  const std::size_t arrays = lane_arrays(lanes), l1 = h.caches.l1d;
  const bool sixteen_bit_sums = !writes && past_llc && element_size < sizeof(float) &&
                                static_cast<std::size_t>(lanes) * element_size >= 64;
  if (2 * arrays < l1 && !sixteen_bit_sums) return 0;
  if (!writes && element_size >= sizeof(float) && arrays < l1) return 0;
  const std::size_t tile_bytes =
      4 * static_cast<std::size_t>(std::max<std::int64_t>(1, lanes)) * element_size;
  return static_cast<std::int64_t>(
      std::max<std::size_t>(1, h.caches.reuse_bytes() / 4 / tile_bytes));
}

}  // namespace

Host this_host() {
  return {host_caches(), simd::vector_bytes()};
}

RowsWalk rows_walk(const Host& h, std::int64_t lanes, std::size_t element_size, std::size_t bytes,
                   bool writes) {
  RowsWalk w;
  const bool past_llc = bytes > h.caches.llc_bytes();
  const bool wide = h.vector_bytes >= kWide;
  const bool arrays_fill_l1 = lane_arrays(lanes) >= h.caches.l1d;
  w.tile = row_tile(h, lanes, element_size, writes, past_llc);
  // Tiles or rows where a tile is possible. The single sweep: tiles only where the vectors are
  // 64 bytes and the lane arrays fill L1 (Zen 4, 32 KiB L1d: 2048 lanes 1.15-1.35x faster in
  // tiles); where L1 holds them, rows (Zen 5, 48 KiB: 2048 lanes 0.94-0.96x the time of tiles;
  // 1024 lanes tie), and on 32-byte vectors rows (Zen 3: 1024 and 2048 lanes 1.34x and 1.28x
  // faster). The reduce pass: tiles, but for lane arrays that fill L1 on 32-byte vectors (Zen 1:
  // the 16-bit reduce pass of 2048 lanes 0.82-0.85x the time of tiles in rows; Zen 4 float32
  // 2048 lanes 1.13x faster in tiles; Zen 5 ties).
  if (w.tile > 0 && (writes ? !(wide && arrays_fill_l1) : (!wide && arrays_fill_l1))) w.tile = 0;
  // Pairs halve the accumulator loads and stores, and from caches both walks take the same time,
  // but the Zen 3's prefetchers lose pairs of rows 512 bytes to 1 KiB long read from memory
  // (32x56x56x256 channels-last: 1.2-1.3x slower in every type), where pairs of 2 KiB rows ran
  // 0.89x and of 128 bytes 0.93-0.96x the time of single rows.
  const std::size_t row_bytes = static_cast<std::size_t>(lanes) * element_size;
  w.pairs = wide || !past_llc || row_bytes < 512 || row_bytes > 1024;
  // The single sweep of rows whose lane arrays pass half of L1 keeps the prefetch whatever the
  // type: its accumulator stores bound the loop, and the prefetch keeps the inputs coming (Zen 5,
  // 32x7x7x2048 channels-last inference-mode float32, 8 alternated rounds: 0.77x the time with
  // it, docs/measurements/zen5-2026-12-01.md; the trials kept it there too).
  w.prefetch =
      write_prefetch(h, element_size) || (writes && 2 * lane_arrays(lanes) >= h.caches.l1d);
  return w;
}

// The software prefetch of the rows sweeps: 16-bit rows take it (Zen 3: 5-12% faster; Zen 5,
// two threads, 32x56x56x256 bfloat16 training 1.15x faster with it), and so does float32 on
// 32-byte vectors (Zen 3, Zen 1); float32 on 64-byte vectors goes without it (Zen 5, one thread:
// the reduce pass 1.05-1.12x, the write pass 1.08-1.17x and the single sweep 1.12x faster
// without; two threads 0.98-1.03; the Zen 4 measured a prefetch into L2 as costing nothing).
// Planes and channel blocks always prefetch: their runs end every H*W elements, where the
// hardware prefetchers stop (Zen 5: 1.36-2.2x slower without).
bool write_prefetch(const Host& h, std::size_t element_size) {
  return element_size < sizeof(float) || h.vector_bytes < kWide;
}

// dx streamed where x, dy and dx together outgrow the last-level cache: a cached dx could not
// stay, and its read-for-ownership would be a 4th or 6th pass (Zen 4, 38.5 MB: streamed ran
// 0.39-0.93x the time of cached). Cached where they fit what the run's threads can count on of
// it (HostCaches::llc_share_bytes), for 4-byte elements (Zen 4, 19-21 MB: cached 1.06x and 1.3x
// faster), and half of that for 16-bit ones (Zen 4: streamed 1.24x faster at 19-21 MB; Zen 5:
// 32x14x14x1024 bfloat16 training, 19 MB, 1.08x). A share, not the whole cache: a 16-vCPU guest
// on a Xeon reads a 300 MiB L3 as its own, and 2 threads there ran 154 MB cached at half the
// speed per byte of the layers streamed. The forward ops' y streams past half of the cache.
bool stream_output(const Host& h, std::size_t tensor_bytes, std::size_t element_size, int threads,
                   bool grad) {
  const std::size_t llc = h.caches.llc_bytes();
  if (!grad) return tensor_bytes > llc / 2;
  if (tensor_bytes > llc) return true;
  const std::size_t share = h.caches.llc_share_bytes(threads);
  return tensor_bytes > (element_size < sizeof(float) ? share / 2 : share);
}

// What a core keeps between two sweeps over the same data: HostCaches::resident_bytes (its L2
// share and a quarter of its L3 share; on the Zen 3 VM planes of up to 3.2 MB ran 0.65-0.9x the
// time of two sweeps).
bool planes_fit(const Host& h, const Geometry& g, std::size_t element_size, int threads) {
  const std::size_t budget = h.caches.resident_bytes();
  if (g.blocks())
    return g.block_count() >= threads &&
           2 * static_cast<std::size_t>(g.m * g.block_c) * element_size <= budget;
  return !g.rows() && g.channels >= threads &&
         2 * static_cast<std::size_t>(g.m) * element_size <= budget;
}

}  // namespace bnscope::cpu
