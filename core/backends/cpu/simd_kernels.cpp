// Highway bodies of simd.h's reduce sweeps (rows_sweep, plane_sweep: per-channel sums, with
// out = p*b in the single sweep) and add_widened_rows, compiled once per x86-64 target and picked
// at run time (HWY_DYNAMIC_DISPATCH), so one binary runs AVX-512, AVX2 or SSE4. Sums use Mul then
// Add in the scalar loops' order (never fused: -ffp-contract=off, deps.cmake); f16/bf16 loads and
// stores give convert.h's bits (simd_vectors-inl.h). The write sweeps are in simd_affine.cpp.

#include <hwy/targets.h>
#include <strings.h>

#include <cstdlib>
#include <string>
#include <type_traits>

#include "backends/cpu/simd.h"
#include "tensor/error.h"

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

// One channel block (V vectors) over `rows` rows: its accumulators loaded, every row added in
// row order, as the row-at-a-time loop adds them, and stored back. ahead(pa, pb) before each
// vector's loads is the caller's prefetch.
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
// each walked one channel block at a time (BlockRows), so the accumulators' loads and stores
// come once per tile, not once per row; a tile and the next, prefetched while it is walked, fit
// the L2. The call's rows are cut into equal tiles, so the last tile of one chunk prefetches the
// first of the next. With an output (the single sweep) the blocks only sum and the tile's out
// rows are written after them from b still in cache (TileOut): written inside the blocks, rows
// a multiple of 4 KiB long met 4K aliasing (docs/measurements/cpu-kernel-notes.md).
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
    // The blocks only sum: no scales (p is null without an output).
    for (; j + V * N <= Lv; j += V * N)
      BlockRows<V, Moments>(ta + j, tb + j, static_cast<T*>(nullptr), nt, rows, stride, next_tile,
                            m + j, nullptr, acc0 + j, acc1 + j);
    for (; j < Lv; j += N)  // the last vectors, fewer than a block
      BlockRows<1, Moments>(ta + j, tb + j, static_cast<T*>(nullptr), nt, rows, stride, next_tile,
                            m + j, nullptr, acc0 + j, acc1 + j);
    for (std::int64_t k = 0; Lv < L && k < rows; ++k)
      RowTail<Moments>(ta + k * stride, tb + k * stride, static_cast<T*>(nullptr), Lv, L, m, p,
                       acc0, acc1);
    if (to) TileOut(tb, to, nt, rows, L, stride, p);
  }
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
  // Two rows per trip of the accumulators through L1 where the planner asks (s.pairs): each lane
  // still adds row k, then row k + 1, for half the accumulator loads and stores. Reductions only:
  // with an output, pairs interleave non-temporal stores to two rows, which is much slower.
  std::int64_t k = 0;
  const bool pairs = s.pairs && !out && n_groups >= 2;  // a local, like nt
  const bool pf = s.prefetch;
  for (; pairs && k + 2 <= n_groups; k += 2) {
    const T* pa = a + k * stride;
    const T* pb = b + k * stride;
    const auto pair_vec = [&](std::int64_t j) {
      VF s0 = hn::LoadU(d, acc0 + j), s1 = hn::LoadU(d, acc1 + j);
      const VF mv = hn::LoadU(d, m + j);
      accumulate_vec<Moments>(load_vec(d, pa + j), load_vec(d, pb + j), mv, s0, s1);
      accumulate_vec<Moments>(load_vec(d, pa + stride + j), load_vec(d, pb + stride + j), mv, s0,
                              s1);
      hn::StoreU(s0, d, acc0 + j);
      hn::StoreU(s1, d, acc1 + j);
    };
    // The four inputs prefetched once per line, not once per vector (the loop is short of
    // instructions where the rows come from the caches); the row-at-a-time loop below keeps a
    // prefetch per vector, which ran faster from memory there.
    constexpr std::int64_t kV = vectors_per_line<T>();
    std::int64_t j = 0;
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
    for (std::int64_t j = 0; j < Lv; j += N) {
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
  // 16 lanes as 16/N vectors (N <= 16 on every target); lane j of the scalar loop is lane j % N of
  // vector j / N.
  VF s0[kL], s1[kL];
  const std::int64_t nv = kL / N;
  for (std::int64_t v = 0; v < nv; ++v) {
    s0[v] = hn::LoadU(d, l0 + v * N);
    s1[v] = hn::LoadU(d, l1 + v * N);
  }
  for (; i + kL <= n; i += kL) {
    VF prod[kL];
    for (std::int64_t v = 0; v < nv; ++v) {
      prefetch_ahead(a + i + v * N, b + i + v * N);
      const VF bv = load_vec(d, b + i + v * N);
      accumulate_vec<Moments>(load_vec(d, a + i + v * N), bv, mv, s0[v], s1[v]);
      if (out) prod[v] = hn::Mul(pv, bv);  // reductions alone multiply nothing
    }
    if (!out) continue;
    if constexpr (kPairs<T>)  // two vectors of 16-bit results in one store on AVX2 (nv = 2)
      store_pair(prod[0], prod[1], out + i, nt);
    else
      for (std::int64_t v = 0; v < nv; ++v) store_vec(prod[v], out + i + v * N, nt);
  }
  for (std::int64_t v = 0; v < nv; ++v) {
    hn::StoreU(s0[v], d, l0 + v * N);
    hn::StoreU(s1[v], d, l1 + v * N);
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

// BNSCOPE_SIMD: the dispatch capped at a narrower vector target for the whole process (simd.h).
namespace {

constexpr const char* kVariable = "BNSCOPE_SIMD";

// Applies the variable's cap; returns the error, empty when it is applied or not set.
std::string cap_from_environment() {
  const char* env = std::getenv(kVariable);
  if (!env || !*env) return "";
  std::string names;
  for (const std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
    if (strcasecmp(env, hwy::TargetName(target)) == 0) {
      // Highway numbers better targets with lower bits: every bit below this one goes.
      hwy::DisableTargets(target - 1);
      return "";
    }
    names += (names.empty() ? "" : ", ") + std::string(hwy::TargetName(target));
  }
  return std::string(kVariable) + " expects a vector target this build has and this CPU runs (" +
         names + "), got '" + clip_for_message(env) + "'";
}

}  // namespace

#if defined(__x86_64__) || defined(__i386__)
bool bf16_instruction = __builtin_cpu_supports("avx512bf16");
#else
bool bf16_instruction = false;
#endif

void apply_target_cap() {
  // Once per process: the dispatch tables are process-wide, and a cap lifted halfway through
  // would mix two targets' timings in one profile.
  static const std::string error = cap_from_environment();
  if (!error.empty()) fail(error);
}

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
