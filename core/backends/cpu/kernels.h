#pragma once
// Building blocks of the cpu backend's pass structures (passes.h).
//
// Geometry. Every tensor is seen as [outer, C, inner] (tensor/layout.h). A channel's M positions
// are cut into chunks fixed by the shape alone; each chunk gives one partial sum per channel,
// computed by the same loop whichever structure and thread runs it, and the partials are added
// in chunk order in double. So every output is bitwise the same for any thread count, structure
// and order in which the threads take the chunks.
//
// Rows (inner == 1: channels-last) are contiguous [C] rows; `group` rows fold into one
// accumulator row of lanes = C*group >= 16, so small and odd C still give long vector loops.
// Planes (inner > 1) are runs of `inner` elements per (o, c), summed into 16 lanes. Blocks
// (1 < inner <= kMaxBlockInner: small planes) take `block_c` channels at a time as one
// contiguous row per outer index, summed lane-wise like rows, then each channel's `inner` lanes
// in order (block_kernels.h).
//
// f32, f16 and bf16 run in simd.h (Highway, dispatched at run time), which adds in the order of
// the scalar loops here; those run f64 and the tails, and define the order.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <numeric>
#include <type_traits>
#include <vector>

#include "backends/cpu/convert.h"
#include "backends/cpu/line_vector.h"
#include "backends/cpu/simd.h"
#include "tensor/layout.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace bnscope::cpu {

constexpr std::int64_t kChunkElements = 64 * 1024;  // elements per chunk, all channels together
constexpr std::int64_t kPlaneChunk = 16 * 1024;     // positions per chunk of one channel plane
constexpr int kLanes = 16;
constexpr std::int64_t kBlockLanes = 2048;    // target row length of a channel block
constexpr std::int64_t kMaxBlockInner = 512;  // larger planes are long enough on their own
constexpr std::int64_t kMaxRowLanes = 1024;   // widest folded row (rows layout)

struct Geometry {
  std::int64_t outer = 0, channels = 0, inner = 0, m = 0;
  std::int64_t chunk_m = 1, chunks = 0;
  std::int64_t group = 1;    // rows folded per accumulator row (rows layout only)
  std::int64_t block_c = 0;  // channels per block (blocks layout only)
  bool rows() const { return inner == 1; }
  bool blocks() const { return block_c > 0; }
  std::int64_t lanes() const { return channels * group; }
  std::int64_t block_count() const { return (channels + block_c - 1) / block_c; }
  std::int64_t block_begin(std::int64_t b) const { return b * block_c; }
  std::int64_t block_end(std::int64_t b) const { return std::min(channels, (b + 1) * block_c); }
  std::int64_t chunk_begin(std::int64_t k) const { return k * chunk_m; }
  std::int64_t chunk_end(std::int64_t k) const { return std::min(m, (k + 1) * chunk_m); }
};

inline Geometry make_geometry(const ChannelView& v) {
  Geometry g;
  g.outer = v.outer;
  g.channels = v.channels;
  g.inner = v.inner;
  g.m = v.per_channel();
  if (g.rows() && g.channels > 0) {
    // Rows a whole number of 16 elements wide (a 64-byte line of f32, the widest x86 vector)
    // leave no scalar tail on any target: C = 3 folds 16 rows into 48 lanes, C = 17 into 272.
    // Capped so the accumulators, centres and coefficients stay within 16 KiB of L1; fixed, not
    // per host, since it sets the order of additions.
    const std::int64_t aligned = 16 / std::gcd<std::int64_t>(g.channels, 16);
    g.group =
        g.channels * aligned <= kMaxRowLanes ? aligned : (kLanes + g.channels - 1) / g.channels;
  }
  if (g.inner > 1 && g.inner <= kMaxBlockInner && g.channels > 0) {
    // A multiple of `unit` channels makes every block start and row length a multiple of 16
    // elements, so rows start vector aligned and the dx stores can all be non-temporal.
    const std::int64_t unit = 16 / std::gcd<std::int64_t>(g.inner, 16);
    g.block_c = std::max(unit, kBlockLanes / g.inner / unit * unit);
    g.block_c = std::min(g.block_c, g.channels);
  }
  // Rows: a chunk is kChunkElements of all channels. Blocks: kChunkElements of one block, whole
  // outer rows. Planes: kPlaneChunk positions of each channel, whatever C.
  if (g.rows())
    g.chunk_m = std::max<std::int64_t>(1, kChunkElements / std::max<std::int64_t>(1, g.channels));
  else if (g.blocks())
    g.chunk_m = std::max<std::int64_t>(1, kChunkElements / (g.block_c * g.inner)) * g.inner;
  else
    g.chunk_m = kPlaneChunk;
  g.chunk_m = (g.chunk_m + g.group - 1) / g.group * g.group;
  g.chunks = (g.m + g.chunk_m - 1) / g.chunk_m;
  return g;
}

// Bytes of x and dy together: what a pass over rows reads (planner.h: rows_walk).
inline std::size_t read_bytes(const Geometry& g, std::size_t element_size) {
  return 2 * static_cast<std::size_t>(g.m * g.channels) * element_size;
}

// Orders this thread's non-temporal stores before the pool's completion signal.
inline void stream_fence() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

// What a reduction sums per element, from a = x, b = dy (or b = x for the moments) and the
// per-channel centre m.
enum class Sum {
  Grad,     // q0 = b,     q1 = b*(a - m)
  Moments,  // q0 = a - m, q1 = (a - m)^2   (m: a shift close to the mean)
};

// Per-channel values repeated to `width` lanes.
template <class V>
LineVector<typename V::value_type> tile(const V& per_channel, std::int64_t width) {
  LineVector<typename V::value_type> out(static_cast<std::size_t>(width));
  for (std::size_t j = 0; j < out.size(); j += per_channel.size())
    std::copy_n(per_channel.begin(), std::min(per_channel.size(), out.size() - j), out.begin() + j);
  return out;
}

// Per-channel values tiled to `lanes` width for the rows layout.
template <class V>
LineVector<typename V::value_type> tile(const V& per_channel, const Geometry& g) {
  return tile(per_channel, g.rows() ? g.lanes() : g.channels);
}

// Lanes of a row of the rows write sweep: whole accumulator rows, at least 512 lanes of 16-bit
// data or 64 of float32 (longer rows spread the per-row work; output elements are independent,
// so this changes no bit).
inline std::int64_t write_lanes(const Geometry& g, std::size_t element_size) {
  const std::int64_t L = g.lanes();
  const std::int64_t least = element_size <= 2 ? 512 : 64;
  return L >= least ? L : (least + L - 1) / L * L;
}

// A thread's lane arrays for the rows sweeps: the two accumulator rows and its own copies of the
// per-lane tables, in one buffer starting on a cache line, each array one line further into a
// 4 KiB page than the last: at C = 1024 or 2048 side by side every accumulator store would share
// its page offset with the next loads (4K aliasing; docs/measurements/cpu-kernel-notes.md).
template <class A>
class LaneArrays {
 public:
  LaneArrays(std::int64_t lanes, int count)
      : stride_(static_cast<std::size_t>((lanes + 15) / 16 * 16 + 16)),
        buf_(stride_ * static_cast<std::size_t>(count)) {}
  A* operator[](int k) { return buf_.data() + stride_ * static_cast<std::size_t>(k); }
  // Array k filled with `values` (lanes long).
  template <class V>
  const A* copy(int k, const V& values) {
    std::copy(values.begin(), values.end(), (*this)[k]);
    return (*this)[k];
  }

 private:
  std::size_t stride_;
  LineVector<A> buf_;
};

// Rows layout, rows [r0, r1) of one chunk: sums into part0/part1 [C]. When W, also writes
// out = p*b (the single-pass grads), non-temporal where nt. The vector loop walks `tile` rows per
// tile (0: a row at a time), pairs of rows and prefetches as the planner says (planner.h:
// RowsWalk).
template <Sum S, bool W, class T>
void rows_reduce(const Geometry& g, const T* __restrict a, const T* __restrict b, T* __restrict out,
                 std::int64_t r0, std::int64_t r1, const Acc<T>* __restrict mL,
                 const Acc<T>* __restrict pL, Acc<T>* __restrict acc0, Acc<T>* __restrict acc1,
                 bool nt, Acc<T>* part0, Acc<T>* part1, std::int64_t tile, bool pairs,
                 bool prefetch) {
  using A = Acc<T>;
  const std::int64_t C = g.channels, L = g.lanes();
  std::fill(acc0, acc0 + L, A(0));
  std::fill(acc1, acc1 + L, A(0));
  const std::int64_t full = r0 + (r1 - r0) / g.group * g.group;  // the rows of whole groups
  std::int64_t r = r0;
  if constexpr (simd::kVector<T>) {
    simd::Sweep s{simd::elem_of<T>(), S == Sum::Moments,          a + r0 * C,
                  b + r0 * C,         W ? out + r0 * C : nullptr, nt};
    s.pairs = pairs;
    s.prefetch = prefetch;
    simd::rows_sweep(s, (full - r0) / g.group, L, L, tile, mL, pL, acc0, acc1);
    r = full;
  }
  // The order every sweep keeps: row k of a group into its lanes (k*C ...), the rows after the
  // last whole group into the first row's lanes.
  for (; r < r1; ++r) {
    const std::int64_t lane = r < full ? (r - r0) % g.group * C : 0;
    for (std::int64_t c = 0; c < C; ++c) {
      const A av = load(a[r * C + c]), bv = load(b[r * C + c]);
      simd::accumulate<S == Sum::Moments>(av, bv, mL[lane + c], acc0[lane + c], acc1[lane + c]);
      if constexpr (W) out[r * C + c] = store<T>(pL[lane + c] * bv);
    }
  }
  // The group's accumulator rows into the channels' sums, each channel's in row order, one row
  // at a time: contiguous loops the compiler vectorizes (channel by channel, it stayed scalar).
  A* __restrict s0 = part0;
  A* __restrict s1 = part1;
  std::copy(acc0, acc0 + C, s0);
  std::copy(acc1, acc1 + C, s1);
  for (std::int64_t k = 1; k < g.group; ++k)
    for (std::int64_t c = 0; c < C; ++c) {
      s0[c] += acc0[k * C + c];
      s1[c] += acc1[k * C + c];
    }
}

// Calls f(at, i) for channel c's positions [m0, m1) in the planes layout: `at` the element, `i`
// its place in the call's part of its run (a run is one outer index's plane).
template <class F>
void for_plane_elements(const Geometry& g, std::int64_t m0, std::int64_t m1, std::int64_t c,
                        F&& f) {
  const std::int64_t inner = g.inner;
  for (std::int64_t o = m0 / inner; o * inner < m1; ++o) {
    const std::int64_t i0 = std::max<std::int64_t>(m0 - o * inner, 0);
    const std::int64_t i1 = std::min<std::int64_t>(m1 - o * inner, inner);
    const std::int64_t base = (o * g.channels + c) * inner;
    for (std::int64_t i = i0; i < i1; ++i) f(base + i, i - i0);
  }
}

template <class A>
inline A lane_sum(const A* l) {
  A s[8];
  for (int j = 0; j < 8; ++j) s[j] = l[j] + l[j + 8];
  return ((s[0] + s[4]) + (s[1] + s[5])) + ((s[2] + s[6]) + (s[3] + s[7]));
}

// Planes layout, positions [m0, m1) of channel c: sums into s0/s1, element i of a run into lane
// i % 16. When W, also writes out = p*b, non-temporal where nt.
template <Sum S, bool W, class T>
void plane_reduce(const Geometry& g, const T* __restrict a, const T* __restrict b,
                  T* __restrict out, std::int64_t m0, std::int64_t m1, std::int64_t c, Acc<T> mv,
                  Acc<T> pv, bool nt, Acc<T>& s0, Acc<T>& s1) {
  using A = Acc<T>;
  A l0[kLanes] = {}, l1[kLanes] = {};
  if constexpr (simd::kVector<T>) {
    const std::int64_t o0 = m0 / g.inner, i0 = m0 - o0 * g.inner;
    const std::int64_t at = (o0 * g.channels + c) * g.inner + i0;
    const simd::Sweep s{
        simd::elem_of<T>(), S == Sum::Moments, a + at, b + at, W ? out + at : nullptr, nt};
    simd::plane_sweep(s, {i0, m1 - m0, g.inner, g.channels * g.inner}, mv, pv, l0, l1);
  } else {
    for_plane_elements(g, m0, m1, c, [&](std::int64_t e, std::int64_t i) {
      const A av = load(a[e]), bv = load(b[e]);
      simd::accumulate<S == Sum::Moments>(av, bv, mv, l0[i % kLanes], l1[i % kLanes]);
      if constexpr (W) out[e] = store<T>(pv * bv);
    });
  }
  s0 = lane_sum(l0);
  s1 = lane_sum(l1);
}

// Per-channel affine output, simd.h's affine(): the training dx p*((b - r) + (a - m)*q), or with
// `normalize` the forward y (a - m)*q + r (a = x; b, p unused). Both keep TensorFlow's order of
// operations, so an Inf coefficient or input gives Inf where TensorFlow does, not Inf - Inf.
template <class A>
struct Affine {
  LineVector<A> p, q, m, r;  // tiled to write_lanes for the rows layout, [C] for planes
  bool normalize = false;
  // No coefficient is NaN and the sums they came from covered every input they apply to, so no
  // input is NaN either (a NaN in x or dy makes its channel's sums NaN): simd.h's
  // Sweep::nan_free. Only training grads know this; see grad_coefs_nan_free.
  bool nan_free = false;
};

// Whether the training-grad coefficients of channels [c0, c1) (per channel, not tiled) are all
// free of NaN: then, the sums behind them being over all of those channels' x and dy, so are the
// inputs (Affine::nan_free).
// Unordered pairs ORed into an int without an early exit, so the loop vectorizes.
template <class A>
bool grad_coefs_nan_free(const Affine<A>& f, std::int64_t c0, std::int64_t c1) {
  const A* __restrict p = f.p.data();
  const A* __restrict q = f.q.data();
  const A* __restrict m = f.m.data();
  const A* __restrict r = f.r.data();
  int nan = 0;
  for (std::int64_t c = c0; c < c1; ++c)
    nan |= std::isunordered(p[c], q[c]) | std::isunordered(m[c], r[c]);
  return nan == 0;
}

// simd.h's affine in the form `normalize` names.
template <class A>
inline A affine_as(bool normalize, A a, A b, A p, A q, A m, A r) {
  return normalize ? simd::affine<true>(a, b, p, q, m, r) : simd::affine<false>(a, b, p, q, m, r);
}

// Rows [r0, r1) of the write pass, non-temporal where nt; the vector loop prefetches ahead where
// `prefetch` (planner.h: write_prefetch).
template <class T>
void rows_write(const Geometry& g, const T* __restrict a, const T* __restrict b, T* __restrict out,
                std::int64_t r0, std::int64_t r1, const Affine<Acc<T>>& f, bool nt, bool prefetch) {
  using A = Acc<T>;
  const bool N = f.normalize;
  const std::int64_t C = g.channels, L = g.lanes();
  const A* __restrict p = f.p.data();
  const A* __restrict q = f.q.data();
  const A* __restrict m = f.m.data();
  const A* __restrict r = f.r.data();
  std::int64_t row = r0;
  if constexpr (simd::kVector<T>) {
    // Rows of f's width (write_lanes: `fold` accumulator rows), then the accumulator rows left;
    // the tiles start with one accumulator row's lanes, so both read the same tables.
    const std::int64_t fold = static_cast<std::int64_t>(f.p.size()) / L;
    const std::int64_t n_groups = (r1 - r0) / g.group;
    const std::int64_t wide = n_groups / fold * fold;
    const auto sweep = [&](std::int64_t first_row, std::int64_t groups, std::int64_t lanes) {
      simd::Sweep s{simd::elem_of<T>(),
                    false,
                    a + first_row * C,
                    b + first_row * C,
                    out + first_row * C,
                    nt,
                    N};
      s.nan_free = f.nan_free;
      s.prefetch = prefetch;
      simd::rows_affine(s, groups / (lanes / L), lanes, lanes, p, q, m, r);
    };
    if (wide > 0) sweep(r0, wide, fold * L);
    if (n_groups > wide) sweep(r0 + wide * g.group, n_groups - wide, L);
    row += n_groups * g.group;
  }
  for (; row < r1; ++row)
    for (std::int64_t c = 0; c < C; ++c) {
      const std::int64_t e = row * C + c;
      // In the forward form b is never read (it may alias a).
      out[e] = store<T>(affine_as(N, load(a[e]), N ? A(0) : load(b[e]), p[c], q[c], m[c], r[c]));
    }
}

template <class T>
void plane_write(const Geometry& g, const T* __restrict a, const T* __restrict b, T* __restrict out,
                 std::int64_t m0, std::int64_t m1, std::int64_t c, const Affine<Acc<T>>& f,
                 bool nt) {
  using A = Acc<T>;
  const bool N = f.normalize;
  const A p = f.p[c], q = f.q[c], m = f.m[c], r = f.r[c];
  if constexpr (simd::kVector<T>) {
    const std::int64_t o0 = m0 / g.inner, i0 = m0 - o0 * g.inner;
    const std::int64_t at = (o0 * g.channels + c) * g.inner + i0;
    simd::Sweep s{simd::elem_of<T>(), false, a + at, b + at, out + at, nt, N};
    s.nan_free = f.nan_free;
    simd::plane_affine(s, {i0, m1 - m0, g.inner, g.channels * g.inner}, p, q, m, r);
  } else {
    for_plane_elements(g, m0, m1, c, [&](std::int64_t e, std::int64_t) {
      out[e] = store<T>(affine_as(N, load(a[e]), N ? A(0) : load(b[e]), p, q, m, r));
    });
  }
}

// Per-channel totals of the two quantities a Sum names, in double.
struct Totals {
  std::vector<double> s0, s1;
};

// Memory the backend keeps from one run to the next for the chunk partials (Partials), so a run
// does not map, fault in and zero fresh pages for them while the pool waits: it grows to the
// largest run's need and is held until the backend goes.
class Scratch {
 public:
  // At least `bytes` bytes aligned for double, contents unspecified; valid until the next call.
  void* get(std::size_t bytes) {
    const std::size_t words = (bytes + sizeof(double) - 1) / sizeof(double);
    if (words > words_) {
      buf_ = std::make_unique_for_overwrite<double[]>(words);
      words_ = words;
    }
    return buf_.get();
  }

 private:
  std::unique_ptr<double[]> buf_;
  std::size_t words_ = 0;
};

// Partial sums per chunk and channel, combined in chunk order in double. In the backend's
// scratch memory, uninitialised: the pass writes every (chunk, channel) before totals() reads it.
template <class A>
struct Partials {
  A* s0 = nullptr;  // [chunks * C]
  A* s1 = nullptr;
  Partials(const Geometry& g, Scratch& scratch) {
    const auto n = static_cast<std::size_t>(g.chunks * g.channels);
    s0 = static_cast<A*>(scratch.get(2 * n * sizeof(A)));
    s1 = s0 + n;
  }
  // Every channel adds its chunks in chunk order, so the totals are those of one channel at a
  // time, but the loops run over independent channels side by side, in vectors (simd.h:
  // add_widened_rows), not one dependent chain of additions per channel over values C apart.
  Totals totals(const Geometry& g) const {
    Totals t = zero_totals(g);
    add_into(g, 0, g.channels, t);
    return t;
  }
  static Totals zero_totals(const Geometry& g) {
    Totals t;
    t.s0.assign(static_cast<std::size_t>(g.channels), 0.0);
    t.s1.assign(static_cast<std::size_t>(g.channels), 0.0);
    return t;
  }
  // Channels [c0, c1) of the totals: a split of the channels among threads gives the same bits.
  void add_into(const Geometry& g, std::int64_t c0, std::int64_t c1, Totals& t) const {
    const auto C = static_cast<std::size_t>(g.channels);
    const std::int64_t n = c1 - c0;
    double* __restrict t0 = t.s0.data() + c0;
    double* __restrict t1 = t.s1.data() + c0;
    if constexpr (std::is_same_v<A, float>) {
      const auto stride = static_cast<std::int64_t>(C);
      simd::add_widened_rows(s0 + c0, g.chunks, stride, t0, n);
      simd::add_widened_rows(s1 + c0, g.chunks, stride, t1, n);
    } else {
      for (std::int64_t k = 0; k < g.chunks; ++k) {
        const A* __restrict r0 = s0 + static_cast<std::size_t>(k) * C + c0;
        const A* __restrict r1 = s1 + static_cast<std::size_t>(k) * C + c0;
        for (std::int64_t c = 0; c < n; ++c) {
          t0[c] += static_cast<double>(r0[c]);
          t1[c] += static_cast<double>(r1[c]);
        }
      }
    }
  }
};

}  // namespace bnscope::cpu
