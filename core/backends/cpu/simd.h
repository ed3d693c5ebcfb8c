#pragma once
// Vector inner loops of the cpu backend (Highway, one binary for every x86-64 level: the best
// target the running CPU has is picked at the first call; see simd_kernels.cpp, simd_affine.cpp).
//
// Every loop adds in exactly the order of the scalar loops in kernels.h and converts f16/bf16
// bit for bit as convert.h does, so sums and outputs are identical whichever target runs and
// whichever pass structure calls them (the determinism contract in kernels.h).

#include <cstdint>
#include <type_traits>

#include "backends/cpu/convert.h"

namespace bnscope::cpu::simd {

enum class Elem { F32, F16, BF16 };

// The element types the vector sweeps take (double runs the scalar loops of kernels.h).
template <class T>
constexpr bool kVector =
    std::is_same_v<T, float> || std::is_same_v<T, f16> || std::is_same_v<T, bf16>;

template <class T>
constexpr Elem elem_of() {
  if constexpr (std::is_same_v<T, f16>) return Elem::F16;
  if constexpr (std::is_same_v<T, bf16>) return Elem::BF16;
  return Elem::F32;
}

// What one sweep computes. a, b, out point at the first element of the span.
struct Sweep {
  Elem elem = Elem::F32;
  bool moments = false;  // sums of (a-m, (a-m)^2) instead of (b, b*(a-m))
  const void* a = nullptr;
  const void* b = nullptr;
  void* out = nullptr;     // when set, also out = p*b
  bool nt = false;         // non-temporal stores where the address allows
  bool normalize = false;  // affine loops: the forward form (see affine below)
  bool pairs = true;       // rows without an output: two rows per trip (planner.h)
  // Software prefetch ahead of the loads: the rows sweeps as the planner says (RowsWalk); planes
  // and channel blocks, whose short runs the hardware prefetchers lose, always prefetch.
  bool prefetch = true;
  // Affine grad loops: no input or coefficient is NaN (kernels.h: Affine::nan_free), so a NaN
  // output is the default NaN of an invalid operation, whose plain rounding already gives
  // convert.h's pattern: the 16-bit stores leave out their NaN test.
  bool nan_free = false;
};

// The affine output, in TensorFlow's order of operations so that NaN and Inf come out where
// they do in TensorFlow (an expanded p*b + q*(a-m) + r turns Inf*finite terms into Inf - Inf).
// Grads (normalize false), with p = γk, r = Σdy/M, q = -k²Σdy(x-μ)/M:
//   out = p * ((b - r) + (a - m) * q)
// which is TensorFlow's γk·((dy - r) - (x-μ)·k²Σdy(x-μ)/M) exactly (x - y is x + (-y)).
// Forward (normalize true), with q = γk, r = β; b and p unused:
//   out = (a - m) * q + r
template <bool Normalize, class A>
inline A affine(A a, A b, A p, A q, A m, A r) {
  if constexpr (Normalize) {
    (void)b;
    (void)p;
    return (a - m) * q + r;
  } else {
    return p * ((b - r) + (a - m) * q);
  }
}

// One element's sums, the scalar form of every sweep's (simd_kernels.cpp: accumulate_vec): with
// Moments (a - m, (a - m)^2), else (b, b*(a - m)).
template <bool Moments, class A>
inline void accumulate(A a, A b, A m, A& s0, A& s1) {
  const A d = a - m;
  if constexpr (Moments) {
    s0 += d;
    s1 += d * d;
  } else {
    s0 += b;
    s1 += b * d;
  }
}

// Rows layout: n_groups rows of L lanes, `stride` elements apart (L for consecutive rows; a
// channel block's rows are C*inner apart); acc0/acc1/m/p are [L]. With tile > 0, rows wider than
// the register rows are walked in tiles of at most `tile` rows, a channel block at a time;
// with tile 0, every row goes through the accumulator rows in L1 (planner.h: rows_walk decides).
// The order of each lane's additions is the same either way.
void rows_sweep(const Sweep& s, std::int64_t n_groups, std::int64_t L, std::int64_t stride,
                std::int64_t tile, const float* m, const float* p, float* acc0, float* acc1);

// Planes layout: positions of one channel as runs (one per outer index): the first starts at
// element i0 of its run, `count` positions in all, runs `inner` long and `stride` apart (a, b
// and out point at the first run's start). Element i of a run is summed into lane (i - start)
// % 16 of l0/l1 [16]. One call per channel chunk keeps the dispatch off small planes (7x7).
struct Runs {
  std::int64_t i0, count, inner, stride;
};
void plane_sweep(const Sweep& s, const Runs& runs, float m, float p, float* l0, float* l1);

// out = affine<s.normalize>(a, b, p, q, m, r). Rows: coefficients are [L] and n_groups rows of L,
// `stride` apart; planes: scalars.
void rows_affine(const Sweep& s, std::int64_t n_groups, std::int64_t L, std::int64_t stride,
                 const float* p, const float* q, const float* m, const float* r);
void plane_affine(const Sweep& s, const Runs& runs, float p, float q, float m, float r);

// The channel blocks' scalar fold, shared by fold_lanes below (the part no transpose takes) and
// the double path of block_kernels.h, so the order of additions is written once.
// Lanes [from, inner) of channels [c0, c1) added into t0[c], t1[c] in lane order, the channels
// side by side (independent chains); from 0, each sum starts as its first lane (not 0 + lane,
// which turns -0 into +0).
template <class A>
inline void fold_side_by_side(const A* __restrict acc0, const A* __restrict acc1, std::int64_t c0,
                              std::int64_t c1, std::int64_t inner, std::int64_t from,
                              A* __restrict t0, A* __restrict t1) {
  if (from == 0) {
    for (std::int64_t c = c0; c < c1; ++c) {
      t0[c] = acc0[c * inner];
      t1[c] = acc1[c * inner];
    }
    from = 1;
  }
  for (std::int64_t i = from; i < inner; ++i)
    for (std::int64_t c = c0; c < c1; ++c) {
      t0[c] += acc0[c * inner + i];
      t1[c] += acc1[c * inner + i];
    }
}

// Channel blocks (block_kernels.h): channel c's `inner` lanes acc0[c*inner ...] summed in lane
// order into t0[c] (acc1 into t1[c]), for c in [0, channels); each sum starts as its first lane.
void fold_lanes(const float* acc0, const float* acc1, std::int64_t channels, std::int64_t inner,
                float* t0, float* t1);

// out[c] = 1.0 / std::sqrt(v[c] + eps) for c in [0, n), the bits of the scalar expression.
void rsqrt_plus(const double* v, double eps, double* out, std::int64_t n);

// dst[i] += double(src[k*stride + i]) for k = 0, 1, ..., rows - 1 in turn, for i in [0, n): each
// an exact widening and one double addition, in row order, as the scalar loop does it.
void add_widened_rows(const float* src, std::int64_t rows, std::int64_t stride, double* dst,
                      std::int64_t n);

// BatchNormWithGlobalNormalizationGrad in half (simd_global_half.cpp): for channels [c0, c1) of
// `rows` rows in row order, db += dy and s2 += dy*(x - mean), every operation rounded to half,
// and dx = dy*gk. db, s2: the running sums ([C] floats holding halves); mean, gk: [C] padded with
// zeros to 16 past C, so a row's last channels run as a whole vector.
struct HalfRows {
  const f16* x = nullptr;
  const f16* dy = nullptr;
  f16* dx = nullptr;
  std::int64_t rows = 0, channels = 0;
  const float* mean = nullptr;
  const float* gk = nullptr;
  float* db = nullptr;
  float* s2 = nullptr;
  bool nt = false;
};
void global_half_rows(const HalfRows& h, std::int64_t c0, std::int64_t c1);

// BNSCOPE_SIMD=<target> (a name as target_name() spells it, any case) caps the dispatch at that
// target for the whole process: an AVX2 or SSE4 host's code path timed or checked on a wider
// CPU; sums and outputs keep their bits (above). Applied once, at the cpu backend's first run or
// the first target_name() or vector_bytes(); throws Error naming the targets this build has and
// this CPU runs when the variable names none of them.
void apply_target_cap();

// The Highway target the dispatcher picked on this CPU ("AVX3", "AVX2", "SSE4", ...).
const char* target_name();

// Whether the AVX-512 sweeps round float to bfloat16 by `vcvtneps2bf16` (AVX512_BF16) instead of
// integer operations: the same bits (a vector holding a subnormal, which it flushes, takes the
// integer path). Set from the CPU; tests switch it to check both paths.
extern bool bf16_instruction;

// Bytes of one vector of that target (64 on AVX-512, 32 on AVX2, 16 on SSE4).
std::int64_t vector_bytes();

// The vectors of a row of L lanes that rows_sweep keeps in registers across rows, for vectors
// of `vector_lanes` floats (1, 2 or 4), or 0: such rows never go through the accumulator rows
// in L1, so neither tiles nor Sweep::pairs change how they are walked.
constexpr int register_row_vectors(std::int64_t L, std::int64_t vector_lanes) {
  if (vector_lanes <= 0 || L % vector_lanes != 0) return 0;
  const std::int64_t v = L / vector_lanes;
  return v == 1 || v == 2 || v == 4 ? static_cast<int>(v) : 0;
}

}  // namespace bnscope::cpu::simd
