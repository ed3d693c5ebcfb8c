// Highway bodies of simd.h's reduce sweeps (rows_sweep, plane_sweep: per-channel sums, with
// out = p*b in the single sweep) and add_widened_rows, compiled once per x86-64 target
// (foreach_target) and picked at run time (HWY_DYNAMIC_DISPATCH): no -march flag, so the same
// binary uses AVX-512 or AVX2 where present and still runs on SSE-only CPUs.
//
// Bitwise contract: sums use Mul then Add (never a fused multiply-add; the file is built with
// -ffp-contract=off, see deps.cmake) in the scalar loops' order; f16/bf16 loads and stores give
// convert.h's bits (simd_vectors-inl.h). The write sweeps are in simd_affine.cpp. Scalar tails call
// convert.h directly. Non-temporal stores (Stream) are used for every vector whose address is
// vector aligned, so dx costs no read-for-ownership.

#include <type_traits>

#include "backends/cpu/simd.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/cpu/simd_kernels.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "backends/cpu/simd_vectors-inl.h"

HWY_BEFORE_NAMESPACE();
namespace bnscope::cpu::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// One vector of a sweep: the sums of simd.h's Sweep, in the scalar loops' order.
template <bool Moments>
HWY_INLINE void accumulate_vec(VF av, VF bv, VF mv, VF& s0, VF& s1) {
  const VF dv = hn::Sub(av, mv);
  if constexpr (Moments) {
    s0 = hn::Add(s0, dv);
    s1 = hn::Add(s1, hn::Mul(dv, dv));
  } else {
    s0 = hn::Add(s0, bv);
    s1 = hn::Add(s1, hn::Mul(bv, dv));
  }
}

// Lanes [from, L) of one row, one at a time: the part of a row short of a whole vector.
template <bool Moments, class T>
HWY_INLINE void RowTail(const T* pa, const T* pb, T* out, std::int64_t from, std::int64_t L,
                        const float* m, const float* p, float* acc0, float* acc1) {
  for (std::int64_t j = from; j < L; ++j) {
    const float av = load(pa[j]), bv = load(pb[j]);
    accumulate<Moments>(av, bv, m[j], acc0[j], acc1[j]);
    if (out) out[j] = store<T>(p[j] * bv);
  }
}

// One channel block (V vectors) over `rows` rows: loads the block's accumulators, adds every row
// into them in row order, stores them back, so each lane adds row k before row k + 1, as the
// row-at-a-time loop does. ahead(pa, pb) is called before each vector's loads: the prefetch policy
// of the caller.
template <int V, bool Moments, class T, class Ahead>
HWY_INLINE void BlockRows(const T* HWY_RESTRICT a, const T* HWY_RESTRICT b, T* HWY_RESTRICT out,
                          bool nt, std::int64_t rows, std::int64_t stride, Ahead&& ahead,
                          const float* HWY_RESTRICT m, const float* HWY_RESTRICT p,
                          float* HWY_RESTRICT acc0, float* HWY_RESTRICT acc1) {
  const DF d;
  const std::int64_t N = static_cast<std::int64_t>(hn::Lanes(d));
  VF s0[V], s1[V], mv[V], pv[V];
  for (int v = 0; v < V; ++v) {
    s0[v] = hn::LoadU(d, acc0 + v * N);
    s1[v] = hn::LoadU(d, acc1 + v * N);
    mv[v] = hn::LoadU(d, m + v * N);
    pv[v] = out ? hn::LoadU(d, p + v * N) : hn::Zero(d);
  }
  for (std::int64_t k = 0; k < rows; ++k) {
    const T* pa = a + k * stride;
    const T* pb = b + k * stride;
    for (int v = 0; v < V; ++v) {
      ahead(pa + v * N, pb + v * N);
      const VF bv = load_vec(d, pb + v * N);
      accumulate_vec<Moments>(load_vec(d, pa + v * N), bv, mv[v], s0[v], s1[v]);
      if (out) store_vec(hn::Mul(pv[v], bv), out + k * stride + v * N, nt);
    }
  }
  for (int v = 0; v < V; ++v) {
    hn::StoreU(s0[v], d, acc0 + v * N);
    hn::StoreU(s1[v], d, acc1 + v * N);
  }
}

// BlockRows of G 16-lane groups of bfloat16 (T) without an output, the inputs in split order
// (load_split): centres and accumulators are in that order too (reordered by the caller).
template <int G, bool Moments, class T, class Ahead>
HWY_INLINE void BlockRowsSplit(const T* HWY_RESTRICT a, const T* HWY_RESTRICT b, std::int64_t rows,
                               std::int64_t stride, Ahead&& ahead, const float* HWY_RESTRICT mu,
                               float* HWY_RESTRICT acc0, float* HWY_RESTRICT acc1) {
  const DF d;
  VF s0[2 * G], s1[2 * G], mv[2 * G];
  for (int h = 0; h < 2 * G; ++h) {
    s0[h] = hn::LoadU(d, acc0 + 8 * h);
    s1[h] = hn::LoadU(d, acc1 + 8 * h);
    mv[h] = hn::LoadU(d, mu + 8 * h);
  }
  for (std::int64_t k = 0; k < rows; ++k) {
    const T* pa = a + k * stride;
    const T* pb = b + k * stride;
    for (int g = 0; g < G; ++g) {
      ahead(pa + 16 * g, pb + 16 * g);
      ahead(pa + 16 * g + 8, pb + 16 * g + 8);
      VF av[2], bv[2];
      load_split(pa + 16 * g, av[0], av[1]);
      load_split(pb + 16 * g, bv[0], bv[1]);
      for (int h = 0; h < 2; ++h)
        accumulate_vec<Moments>(av[h], bv[h], mv[2 * g + h], s0[2 * g + h], s1[2 * g + h]);
    }
  }
  for (int h = 0; h < 2 * G; ++h) {
    hn::StoreU(s0[h], d, acc0 + 8 * h);
    hn::StoreU(s1[h], d, acc1 + 8 * h);
  }
}

// R rows (`stride` apart) of one 16-lane group of bfloat16 through its accumulators in L1, the
// inputs, centres and accumulators in split order (load_split): each lane adds the rows in
// order, so R = 2 gives the sums of two calls with R = 1 for half the accumulator loads and
// stores.
template <int R, bool Moments, class T>
HWY_INLINE void SplitRows(const T* HWY_RESTRICT a, const T* HWY_RESTRICT b, std::int64_t stride,
                          bool pf, const float* HWY_RESTRICT mu, float* HWY_RESTRICT acc0,
                          float* HWY_RESTRICT acc1) {
  const DF d;
  for (int row = 0; row < R; ++row) prefetch_if(pf, a + row * stride, b + row * stride);
  VF av[R][2], bv[R][2];  // [row][half]
  for (int row = 0; row < R; ++row) {
    load_split(a + row * stride, av[row][0], av[row][1]);
    load_split(b + row * stride, bv[row][0], bv[row][1]);
  }
  for (int h = 0; h < 2; ++h) {
    VF s0 = hn::LoadU(d, acc0 + 8 * h), s1 = hn::LoadU(d, acc1 + 8 * h);
    const VF mv = hn::LoadU(d, mu + 8 * h);
    for (int row = 0; row < R; ++row) accumulate_vec<Moments>(av[row][h], bv[row][h], mv, s0, s1);
    hn::StoreU(s0, d, acc0 + 8 * h);
    hn::StoreU(s1, d, acc1 + 8 * h);
  }
}

// Reorders lanes [0, L16) of acc0 and acc1 into split order and, where mu is given, fills it
// with the centres of those lanes in that order; L16 a multiple of 16.
HWY_INLINE void to_split_lanes(std::int64_t L16, const float* m, float* mu, float* acc0,
                               float* acc1) {
  for (std::int64_t j = 0; j < L16; j += 16) {
    if (mu) split_order(m + j, mu + j);
    reorder_in_place(acc0 + j, false);
    reorder_in_place(acc1 + j, false);
  }
}
// Puts lanes [0, L16) of acc0 and acc1 back in element order.
HWY_INLINE void from_split_lanes(std::int64_t L16, float* acc0, float* acc1) {
  for (std::int64_t j = 0; j < L16; j += 16) {
    reorder_in_place(acc0 + j, true);
    reorder_in_place(acc1 + j, true);
  }
}

// Rows of exactly V vectors (C = 1 or 16 folded to 16 lanes, C = 32, 64): the accumulators stay
// in registers across rows instead of going through memory each row, whose store-to-load
// latency would otherwise bound a row of 16 lanes. Same additions in the same order.
template <int V, bool Moments, class T>
void RowsSweepRegs(const Sweep& s, std::int64_t n_groups, std::int64_t stride,
                   const float* HWY_RESTRICT m, const float* HWY_RESTRICT p,
                   float* HWY_RESTRICT acc0, float* HWY_RESTRICT acc1) {
  const bool pf = s.prefetch;
  BlockRows<V, Moments>(
      static_cast<const T*>(s.a), static_cast<const T*>(s.b), static_cast<T*>(s.out), s.nt,
      n_groups, stride, [pf](const T* pa, const T* pb) { prefetch_if<true>(pf, pa, pb); }, m, p,
      acc0, acc1);
}

// Vectors of one channel block of a row tile: the accumulators of a block this many vectors wide
// stay in registers while the tile's rows are walked, with its centres and scales beside them
// (4 registers per vector, half the register file: 32 on AVX-512, 16 below it).
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
constexpr int kBlockVectors = 4;
#else
constexpr int kBlockVectors = 2;
#endif

// Prefetches the next row tile into L2 one vector's bytes per call, row by row in address order,
// so memory sees the tile as the few sequential streams it is, not as the column walks the
// blocks make of it. A prefetch past the end of the tensor is harmless.
struct TilePrefetch {
  const char* a;
  const char* b;
  std::int64_t at, row_bytes, stride_bytes, step;
  HWY_INLINE void next() {
#if HWY_ARCH_X86
    _mm_prefetch(a + at, _MM_HINT_T1);
    _mm_prefetch(b + at, _MM_HINT_T1);
#endif
    at += step;
    if (at >= row_bytes) {
      at = 0;
      a += stride_bytes;
      b += stride_bytes;
    }
  }
};

// Rows whose lane arrays crowd L1 (planner.cpp: row_tile): row tiles of at most `max_tile` rows,
// each walked one channel block at a time (BlockRows). Keeping the accumulator rows in L1 and
// adding every row into them costs a load and a store of two accumulator vectors per input
// vector, and those stores, not memory, bound the wide-row single sweep; here they come once per
// tile. The caller sizes the tile from the L2 (kernels.h) so that a tile and the next, prefetched
// while it is walked, fit in it. The call's rows are cut into equal tiles, so the last tile of
// one chunk prefetches the whole first tile of the next (a thread takes consecutive chunks). With
// an output (out = p*b, the single sweep), the blocks only sum and the tile's out rows are
// written after them, row by row, from b still in cache (TileOut). Written inside the blocks,
// each out vector of row k was followed by the loads of row k + 1 at the same column: with rows a
// multiple of 4 KiB long (C = 1024, 2048 in float32) and out, a and b alike aligned, every such
// load shares its page offset with the store just made, and the core holds it back as possibly
// dependent (4K aliasing; docs/measurements/cpu-kernel-notes.md).
template <class T>
void TileOut(const T* HWY_RESTRICT b, T* HWY_RESTRICT out, bool nt, std::int64_t rows,
             std::int64_t L, std::int64_t stride, const float* HWY_RESTRICT p) {
  const DF d;
  const std::int64_t N = static_cast<std::int64_t>(hn::Lanes(d));
  const std::int64_t Lv = L / N * N;
  for (std::int64_t k = 0; k < rows; ++k) {
    const T* pb = b + k * stride;
    T* po = out + k * stride;
    std::int64_t j = 0;
    if constexpr (kPairs<T>)
      for (; j + 2 * N <= Lv; j += 2 * N)
        store_pair(hn::Mul(hn::LoadU(d, p + j), load_vec(d, pb + j)),
                   hn::Mul(hn::LoadU(d, p + j + N), load_vec(d, pb + j + N)), po + j, nt);
    for (; j < Lv; j += N) store_vec(hn::Mul(hn::LoadU(d, p + j), load_vec(d, pb + j)), po + j, nt);
    for (; j < L; ++j) po[j] = store<T>(p[j] * load(pb[j]));
  }
}

template <bool Moments, class T>
void RowsSweepTiled(const Sweep& s, std::int64_t n_groups, std::int64_t L, std::int64_t stride,
                    std::int64_t max_tile, const float* HWY_RESTRICT m, const float* HWY_RESTRICT p,
                    float* HWY_RESTRICT acc0, float* HWY_RESTRICT acc1) {
  const DF d;
  const std::int64_t N = static_cast<std::int64_t>(hn::Lanes(d));
  const T* a = static_cast<const T*>(s.a);
  const T* b = static_cast<const T*>(s.b);
  T* out = static_cast<T*>(s.out);
  const bool nt = s.nt;  // a local: the stores could alias s, so s.nt would be re-read
  const std::int64_t Lv = L / N * N;
  // Blocks of 16-bit inputs four vectors wide, a whole line on AVX2 (the blocks only sum, so the
  // scales' registers are free for them): blocks of half a line read each line twice, the second
  // half after the tile's rows had pushed it out of L1.
  constexpr int V = sizeof(T) == 2 ? 4 : kBlockVectors;
  if (n_groups <= 0) return;
  // bfloat16 on AVX2 without an output: whole 16-lane blocks in split order (load_split).
  std::int64_t L16 = 0;
  float* mu = nullptr;
  if constexpr (kSplit<T>)
    if (!out) {
      L16 = L / 16 * 16;
      mu = split_scratch(L16);
      to_split_lanes(L16, m, mu, acc0, acc1);
    }
  const std::int64_t tiles = (n_groups + max_tile - 1) / max_tile;
  const std::int64_t tile = (n_groups + tiles - 1) / tiles;
  const std::int64_t E = static_cast<std::int64_t>(sizeof(T));
  for (std::int64_t k0 = 0; k0 < n_groups; k0 += tile) {
    const std::int64_t rows = std::min(tile, n_groups - k0);
    const T* ta = a + k0 * stride;
    const T* tb = b + k0 * stride;
    T* to = out ? out + k0 * stride : nullptr;
    TilePrefetch ahead{reinterpret_cast<const char*>(ta + tile * stride),
                       reinterpret_cast<const char*>(tb + tile * stride),
                       0,
                       L * E,
                       stride * E,
                       N * E};
    const auto next_tile = [&ahead](const T*, const T*) { ahead.next(); };
    std::int64_t j = 0;
    if constexpr (kSplit<T>) {
      for (; j + 32 <= L16; j += 32)
        BlockRowsSplit<2, Moments>(ta + j, tb + j, rows, stride, next_tile, mu + j, acc0 + j,
                                   acc1 + j);
      for (; j < L16; j += 16)
        BlockRowsSplit<1, Moments>(ta + j, tb + j, rows, stride, next_tile, mu + j, acc0 + j,
                                   acc1 + j);
    }
    // The blocks only sum: no scales (p is null without an output).
    for (; j + V * N <= Lv; j += V * N)
      BlockRows<V, Moments>(ta + j, tb + j, static_cast<T*>(nullptr), nt, rows, stride, next_tile,
                            m + j, nullptr, acc0 + j, acc1 + j);
    const auto block = [&](auto vectors) {
      BlockRows<decltype(vectors)::value, Moments>(ta + j, tb + j, static_cast<T*>(nullptr), nt,
                                                   rows, stride, next_tile, m + j, nullptr,
                                                   acc0 + j, acc1 + j);
    };
    switch ((Lv - j) / N) {  // the last vectors, fewer than a block
      case 3:
        block(std::integral_constant<int, 3>{});
        break;
      case 2:
        block(std::integral_constant<int, 2>{});
        break;
      case 1:
        block(std::integral_constant<int, 1>{});
        break;
      default:
        break;
    }
    for (std::int64_t k = 0; Lv < L && k < rows; ++k)
      RowTail<Moments>(ta + k * stride, tb + k * stride, static_cast<T*>(nullptr), Lv, L, m, p,
                       acc0, acc1);
    if (to) TileOut(tb, to, nt, rows, L, stride, p);
  }
  if constexpr (kSplit<T>) from_split_lanes(L16, acc0, acc1);
}

// Rows through the accumulator rows in L1 one at a time (tile 0, planner.cpp: row_tile): rows
// narrow enough that their lane arrays share L1 with the inputs, and the channel blocks of small
// channels-first planes, whose rows lie C*inner apart: row tiles there walk rows hundreds of KB
// apart, a page or two each, and ran slower.
template <bool Moments, class T>
void RowsSweepL1(const Sweep& s, std::int64_t n_groups, std::int64_t L, std::int64_t stride,
                 const float* HWY_RESTRICT m, const float* HWY_RESTRICT p, float* HWY_RESTRICT acc0,
                 float* HWY_RESTRICT acc1) {
  const DF d;
  const std::int64_t N = static_cast<std::int64_t>(hn::Lanes(d));
  const T* a = static_cast<const T*>(s.a);
  const T* b = static_cast<const T*>(s.b);
  T* out = static_cast<T*>(s.out);
  const bool nt = s.nt;  // a local: the stores could alias s, so s.nt would be re-read
  const std::int64_t Lv = L / N * N;
  const auto tail = [&](std::int64_t k) {
    RowTail<Moments>(a + k * stride, b + k * stride, out ? out + k * stride : nullptr, Lv, L, m, p,
                     acc0, acc1);
  };
  // Two rows per trip of the accumulators through L1: each lane still adds row k, then row
  // k + 1, so the sums are those of one row at a time, for half the accumulator loads and
  // stores (they, not the arithmetic, dominate the instruction count of wide rows). Reductions
  // only: with an output, pairs interleave non-temporal stores to two rows, which is much slower.
  // And only where the planner asks (s.pairs; planner.cpp: rows_walk).
  std::int64_t k = 0;
  // bfloat16 on AVX2 without an output: whole groups of 16 lanes in split order
  // (load_split), in both walks, the accumulators and centres of those lanes reordered to
  // match before the rows and back after them: in element order the single rows took twice the
  // prefetches and a widening per vector (docs/measurements/cpu-kernel-notes.md).
  const bool pairs = s.pairs && !out && n_groups >= 2;  // a local, like nt
  const bool pf = s.prefetch;
  std::int64_t L16 = 0;
  float* mu = nullptr;
  if constexpr (kSplit<T>) {
    if (!out) {
      L16 = L / 16 * 16;
      mu = split_scratch(L16);
      to_split_lanes(L16, m, mu, acc0, acc1);
    }
  }
  for (; pairs && k + 2 <= n_groups; k += 2) {
    const T* pa = a + k * stride;
    const T* pb = b + k * stride;
    if constexpr (kSplit<T>)
      for (std::int64_t j = 0; j < L16; j += 16)
        SplitRows<2, Moments>(pa + j, pb + j, stride, pf, mu + j, acc0 + j, acc1 + j);
    const auto pair_vec = [&](std::int64_t j) {
      VF s0 = hn::LoadU(d, acc0 + j), s1 = hn::LoadU(d, acc1 + j);
      const VF mv = hn::LoadU(d, m + j);
      accumulate_vec<Moments>(load_vec(d, pa + j), load_vec(d, pb + j), mv, s0, s1);
      accumulate_vec<Moments>(load_vec(d, pa + stride + j), load_vec(d, pb + stride + j), mv, s0,
                              s1);
      hn::StoreU(s0, d, acc0 + j);
      hn::StoreU(s1, d, acc1 + j);
    };
    // The four inputs prefetched once per line, not once per vector: on AVX2 a float32 vector
    // is half a line and a 16-bit one a quarter, and the loop is short of instructions where the
    // rows come from the caches. The row-at-a-time loop below keeps a prefetch per vector, which
    // ran faster from memory there.
    constexpr std::int64_t kV = vectors_per_line<T>();
    std::int64_t j = L16;
    for (; j + kV * N <= Lv; j += kV * N) {
      prefetch_if(pf, pa + j, pb + j);
      prefetch_if(pf, pa + stride + j, pb + stride + j);
      for (std::int64_t v = 0; v < kV; ++v) pair_vec(j + v * N);
    }
    for (; j < Lv; j += N) {
      prefetch_if(pf, pa + j, pb + j);
      prefetch_if(pf, pa + stride + j, pb + stride + j);
      pair_vec(j);
    }
    tail(k);
    tail(k + 1);
  }
  for (; k < n_groups; ++k) {
    const T* pa = a + k * stride;
    const T* pb = b + k * stride;
    T* po = out ? out + k * stride : nullptr;
    std::int64_t j = 0;
    if constexpr (kSplit<T>)
      for (; j < L16; j += 16)
        SplitRows<1, Moments>(pa + j, pb + j, stride, pf, mu + j, acc0 + j, acc1 + j);
    for (; j < Lv; j += N) {
      prefetch_if(pf, pa + j, pb + j);
      const VF bv = load_vec(d, pb + j);
      VF s0 = hn::LoadU(d, acc0 + j), s1 = hn::LoadU(d, acc1 + j);
      accumulate_vec<Moments>(load_vec(d, pa + j), bv, hn::LoadU(d, m + j), s0, s1);
      hn::StoreU(s0, d, acc0 + j);
      hn::StoreU(s1, d, acc1 + j);
      if (po) store_vec(hn::Mul(hn::LoadU(d, p + j), bv), po + j, nt);
    }
    tail(k);
  }
  if constexpr (kSplit<T>) from_split_lanes(L16, acc0, acc1);
}

template <bool Moments, class T>
void RowsSweepT(const Sweep& s, std::int64_t n_groups, std::int64_t L, std::int64_t stride,
                std::int64_t tile, const float* HWY_RESTRICT m, const float* HWY_RESTRICT p,
                float* HWY_RESTRICT acc0, float* HWY_RESTRICT acc1) {
  const DF d;
  const std::int64_t N = static_cast<std::int64_t>(hn::Lanes(d));
  switch (register_row_vectors(L, N)) {
    case 1:
      return RowsSweepRegs<1, Moments, T>(s, n_groups, stride, m, p, acc0, acc1);
    case 2:
      return RowsSweepRegs<2, Moments, T>(s, n_groups, stride, m, p, acc0, acc1);
    case 4:
      return RowsSweepRegs<4, Moments, T>(s, n_groups, stride, m, p, acc0, acc1);
    default:
      break;
  }
  if (tile <= 0) return RowsSweepL1<Moments, T>(s, n_groups, L, stride, m, p, acc0, acc1);
  RowsSweepTiled<Moments, T>(s, n_groups, L, stride, tile, m, p, acc0, acc1);
}

template <bool Moments, class T>
void PlaneRunT(const Sweep& s, std::int64_t n, float m, float p, float* l0, float* l1) {
  const DF d;
  constexpr std::int64_t kL = 16;
  const std::int64_t N = static_cast<std::int64_t>(hn::Lanes(d));
  const T* a = static_cast<const T*>(s.a);
  const T* b = static_cast<const T*>(s.b);
  T* out = static_cast<T*>(s.out);
  const bool nt = s.nt;  // a local: the stores could alias s, so s.nt would be re-read
  const VF mv = hn::Set(d, m), pv = hn::Set(d, p);
  std::int64_t i = 0;
  if constexpr (kSplit<T>) {
    // The 16 lanes as two vectors in split order (load_split), reordered in and out here.
    to_split_lanes(kL, nullptr, nullptr, l0, l1);
    VF s0[2] = {hn::LoadU(d, l0), hn::LoadU(d, l0 + 8)};
    VF s1[2] = {hn::LoadU(d, l1), hn::LoadU(d, l1 + 8)};
    for (; i + kL <= n; i += kL) {
      prefetch_ahead(a + i, b + i);
      VF av[2], bv[2];
      load_split(a + i, av[0], av[1]);
      load_split(b + i, bv[0], bv[1]);
      for (int h = 0; h < 2; ++h) accumulate_vec<Moments>(av[h], bv[h], mv, s0[h], s1[h]);
      if (out) store_split(hn::Mul(pv, bv[0]), hn::Mul(pv, bv[1]), out + i, nt);
    }
    for (int h = 0; h < 2; ++h) {
      hn::StoreU(s0[h], d, l0 + 8 * h);
      hn::StoreU(s1[h], d, l1 + 8 * h);
    }
    from_split_lanes(kL, l0, l1);
  } else if (N <= kL) {
    // 16 lanes as 16/N vectors; lane j of the scalar loop is lane j % N of vector j / N.
    constexpr std::int64_t kMaxV = 16;
    VF s0[kMaxV], s1[kMaxV];
    const std::int64_t nv = kL / N;
    for (std::int64_t v = 0; v < nv; ++v) {
      s0[v] = hn::LoadU(d, l0 + v * N);
      s1[v] = hn::LoadU(d, l1 + v * N);
    }
    for (; i + kL <= n; i += kL)
      for (std::int64_t v = 0; v < nv; ++v) {
        prefetch_ahead(a + i + v * N, b + i + v * N);
        const VF bv = load_vec(d, b + i + v * N);
        accumulate_vec<Moments>(load_vec(d, a + i + v * N), bv, mv, s0[v], s1[v]);
        if (out) store_vec(hn::Mul(pv, bv), out + i + v * N, nt);
      }
    for (std::int64_t v = 0; v < nv; ++v) {
      hn::StoreU(s0[v], d, l0 + v * N);
      hn::StoreU(s1[v], d, l1 + v * N);
    }
  }
  for (std::int64_t j = 0; i < n; ++i, ++j) {
    const float av = load(a[i]), bv = load(b[i]);
    accumulate<Moments>(av, bv, m, l0[j], l1[j]);
    if (out) out[i] = store<T>(p * bv);
  }
}

template <bool Moments, class T>
void PlaneSweepT(const Sweep& s, const Runs& runs, float m, float p, float* l0, float* l1) {
  for_runs<T>(s, runs,
              [&](const Sweep& r, std::int64_t n) { PlaneRunT<Moments, T>(r, n, m, p, l0, l1); });
}

void RowsSweep(const Sweep& s, std::int64_t n_groups, std::int64_t L, std::int64_t stride,
               std::int64_t tile, const float* m, const float* p, float* acc0, float* acc1) {
  by_elem(s.elem, [&](auto tag) {
    using T = typename decltype(tag)::type;
    s.moments ? RowsSweepT<true, T>(s, n_groups, L, stride, tile, m, p, acc0, acc1)
              : RowsSweepT<false, T>(s, n_groups, L, stride, tile, m, p, acc0, acc1);
  });
}
void PlaneSweep(const Sweep& s, const Runs& runs, float m, float p, float* l0, float* l1) {
  by_elem(s.elem, [&](auto tag) {
    using T = typename decltype(tag)::type;
    s.moments ? PlaneSweepT<true, T>(s, runs, m, p, l0, l1)
              : PlaneSweepT<false, T>(s, runs, m, p, l0, l1);
  });
}
// Eight vectors of columns at a time, their totals in registers down all the rows: eight
// independent chains of additions, and the totals loaded and stored once, not for every row.
void AddWidenedRows(const float* HWY_RESTRICT src, std::int64_t rows, std::int64_t stride,
                    double* HWY_RESTRICT dst, std::int64_t n) {
  std::int64_t i = 0;
#if HWY_TARGET != HWY_SCALAR
  const hn::ScalableTag<double> dd;
  const hn::Rebind<float, decltype(dd)> df;  // one float per double lane
  const std::int64_t N = static_cast<std::int64_t>(hn::Lanes(dd));
  constexpr int kVectors = 8;
  using VD = hn::Vec<decltype(dd)>;
  for (; i + kVectors * N <= n; i += kVectors * N) {
    VD t[kVectors];
    for (int v = 0; v < kVectors; ++v) t[v] = hn::LoadU(dd, dst + i + v * N);
    const float* row = src + i;
    for (std::int64_t k = 0; k < rows; ++k, row += stride)
      for (int v = 0; v < kVectors; ++v)
        t[v] = hn::Add(t[v], hn::PromoteTo(dd, hn::LoadU(df, row + v * N)));
    for (int v = 0; v < kVectors; ++v) hn::StoreU(t[v], dd, dst + i + v * N);
  }
  for (; i + N <= n; i += N) {
    VD t = hn::LoadU(dd, dst + i);
    for (std::int64_t k = 0; k < rows; ++k)
      t = hn::Add(t, hn::PromoteTo(dd, hn::LoadU(df, src + k * stride + i)));
    hn::StoreU(t, dd, dst + i);
  }
#endif
  for (; i < n; ++i) {
    double t = dst[i];
    for (std::int64_t k = 0; k < rows; ++k) t += static_cast<double>(src[k * stride + i]);
    dst[i] = t;
  }
}
const char* TargetName() {
  return hwy::TargetName(HWY_TARGET);
}
std::int64_t VectorBytes() {
  return static_cast<std::int64_t>(hn::Lanes(DF()) * sizeof(float));
}

}  // namespace HWY_NAMESPACE
}  // namespace bnscope::cpu::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace bnscope::cpu::simd {

HWY_EXPORT(RowsSweep);
HWY_EXPORT(PlaneSweep);
HWY_EXPORT(AddWidenedRows);
HWY_EXPORT(TargetName);
HWY_EXPORT(VectorBytes);

void rows_sweep(const Sweep& s, std::int64_t n_groups, std::int64_t L, std::int64_t stride,
                std::int64_t tile, const float* m, const float* p, float* acc0, float* acc1) {
  HWY_DYNAMIC_DISPATCH(RowsSweep)(s, n_groups, L, stride, tile, m, p, acc0, acc1);
}
void plane_sweep(const Sweep& s, const Runs& runs, float m, float p, float* l0, float* l1) {
  HWY_DYNAMIC_DISPATCH(PlaneSweep)(s, runs, m, p, l0, l1);
}
void add_widened_rows(const float* src, std::int64_t rows, std::int64_t stride, double* dst,
                      std::int64_t n) {
  HWY_DYNAMIC_DISPATCH(AddWidenedRows)(src, rows, stride, dst, n);
}
const char* target_name() {
  apply_target_cap();
  return HWY_DYNAMIC_DISPATCH(TargetName)();
}
std::int64_t vector_bytes() {
  apply_target_cap();
  return HWY_DYNAMIC_DISPATCH(VectorBytes)();
}

}  // namespace bnscope::cpu::simd
#endif
