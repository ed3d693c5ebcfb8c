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
// RowsSweepTiled), else 0. A row at a time keeps the lane arrays in L1 beside the inputs until
// they pass half of L1 (reductions of 4-byte inputs: until they fill it); 16-bit sums read from
// memory take tiles once a tile's channel blocks are a line wide. A tile is its x and dy and the
// next tile's in a quarter of what a core keeps in L2 (docs/measurements/cpu-kernel-notes.md).
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
  // Tiles or rows where a tile is possible, as each was faster: the single sweep takes tiles
  // only where the vectors are 64 bytes and the lane arrays fill L1, the reduce pass everywhere
  // but where the lane arrays fill L1 on 32-byte vectors.
  if (w.tile > 0 && (writes ? !(wide && arrays_fill_l1) : (!wide && arrays_fill_l1))) w.tile = 0;
  // Pairs halve the accumulator loads and stores, but narrow vectors' prefetchers lose pairs of
  // rows 512 bytes to 1 KiB long read from memory.
  const std::size_t row_bytes = static_cast<std::size_t>(lanes) * element_size;
  w.pairs = wide || !past_llc || row_bytes < 512 || row_bytes > 1024;
  // The single sweep of rows whose lane arrays pass half of L1 keeps the prefetch whatever the
  // type: its accumulator stores bound the loop, and the prefetch keeps the inputs coming.
  w.prefetch =
      write_prefetch(h, element_size) || (writes && 2 * lane_arrays(lanes) >= h.caches.l1d);
  return w;
}

// The software prefetch of the rows sweeps: 16-bit rows and float32 on 32-byte vectors run
// faster with it, float32 on 64-byte vectors without. Planes and channel blocks always
// prefetch: their runs end every H*W elements, where the hardware prefetchers stop.
bool write_prefetch(const Host& h, std::size_t element_size) {
  return element_size < sizeof(float) || h.vector_bytes < kWide;
}

// dx streamed where x, dy and dx together outgrow the last-level cache: a cached dx could not
// stay, and its read-for-ownership would be a 4th or 6th pass. Cached where they fit what the
// run's threads can count on of it (HostCaches::llc_share_bytes: a guest may read a whole
// host's L3 as its own), for 4-byte elements, and half of that for 16-bit ones. The forward
// ops' y streams past half of the cache.
bool stream_output(const Host& h, std::size_t tensor_bytes, std::size_t element_size, int threads,
                   bool grad) {
  const std::size_t llc = h.caches.llc_bytes();
  if (!grad) return tensor_bytes > llc / 2;
  if (tensor_bytes > llc) return true;
  const std::size_t share = h.caches.llc_share_bytes(threads);
  return tensor_bytes > (element_size < sizeof(float) ? share / 2 : share);
}

// What a core keeps between two sweeps over the same data: HostCaches::resident_bytes (its L2
// share and a quarter of its L3 share).
bool planes_fit(const Host& h, const Geometry& g, std::size_t element_size, int threads) {
  const std::size_t budget = h.caches.resident_bytes();
  if (g.blocks())
    return g.block_count() >= threads &&
           2 * static_cast<std::size_t>(g.m * g.block_c) * element_size <= budget;
  return !g.rows() && g.channels >= threads &&
         2 * static_cast<std::size_t>(g.m) * element_size <= budget;
}

PassStructure pass_structure(const Host& host, const Prepared& p, int threads) {
  const OpSpec& op = *p.op;
  if (!op.is_grad)
    return op.family == OpFamily::Fused && p.is_training ? PassStructure::Statistics
                                                         : PassStructure::Write;
  if (op.family == OpFamily::GlobalNorm || !p.is_training) return PassStructure::Single;
  return planes_fit(host, make_geometry(p.view), dtype_size(p.t), threads) ? PassStructure::Planes
                                                                           : PassStructure::TwoPass;
}

std::vector<std::string> pass_names(PassStructure s) {
  switch (s) {
    case PassStructure::Write:
      return {kPassWrite};
    case PassStructure::Statistics:
      return {kPassMean, kPassVariance, kPassWrite};
    case PassStructure::TwoPass:
      return {kPassReduce, kPassWrite};
    case PassStructure::Planes:
      return {kPassPlanes};
    case PassStructure::Single:
      return {kPassFused};
  }
  return {};
}

}  // namespace bnscope::cpu
