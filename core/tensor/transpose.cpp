// transpose.h's tiles. On x86-64 with AVX2 (checked at run time, as channel_scan.cpp does) each
// 32 x 32 tile is moved as 8 x 8 (2 and 4 bytes) or 4 x 4 (8 bytes) register transposes; the
// tile edges, other element sizes and other CPUs go one element at a time. The move out of the
// last-level cache is what bounds it, not the shuffles: 16 x 16 AVX-512 tiles, other tile sizes
// and software prefetch measured no faster on a Zen 4 (tests/bench/layout_bench.cpp).

#include "tensor/transpose.h"

#include <algorithm>
#include <cstring>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define BNSCOPE_TRANSPOSE_X86 1
#else
#define BNSCOPE_TRANSPOSE_X86 0
#endif

namespace bnscope {
namespace {

using i64 = std::int64_t;

// Rows [rb, re) x columns [cb, ce) one element at a time: the portable path and the vector
// path's ragged edges.
template <std::size_t ES>
inline void scalar_block(const std::byte* src, std::byte* dst, i64 rows, i64 cols, i64 rb, i64 re,
                         i64 cb, i64 ce) {
  for (i64 r = rb; r < re; ++r)
    for (i64 c = cb; c < ce; ++c)
      std::memcpy(dst + (c * rows + r) * static_cast<i64>(ES),
                  src + (r * cols + c) * static_cast<i64>(ES), ES);
}

// Square tiles so that both sides are read and written a cache line at a time rather than one
// element per line.
template <std::size_t ES>
void scalar_tiles(const std::byte* src, std::byte* dst, i64 rows, i64 cols, i64 r0, i64 r1) {
  constexpr i64 kTile = 32;
  for (i64 rb = r0; rb < r1; rb += kTile) {
    const i64 re = std::min(rb + kTile, r1);
    for (i64 cb = 0; cb < cols; cb += kTile)
      scalar_block<ES>(src, dst, rows, cols, rb, re, cb, std::min(cb + kTile, cols));
  }
}

void scalar_any(std::size_t es, const std::byte* src, std::byte* dst, i64 rows, i64 cols, i64 r0,
                i64 r1) {
  for (i64 r = r0; r < r1; ++r)
    for (i64 c = 0; c < cols; ++c)
      std::memcpy(dst + (c * rows + r) * static_cast<i64>(es),
                  src + (r * cols + c) * static_cast<i64>(es), es);
}

#if BNSCOPE_TRANSPOSE_X86

#define BNSCOPE_AVX2 [[gnu::target("avx2")]]

// Unaligned loads and stores of one tile row.
BNSCOPE_AVX2 inline __m256 load_ps(const std::byte* p) {
  return _mm256_loadu_ps(reinterpret_cast<const float*>(p));
}
BNSCOPE_AVX2 inline void store_ps(std::byte* p, __m256 v) {
  _mm256_storeu_ps(reinterpret_cast<float*>(p), v);
}
BNSCOPE_AVX2 inline __m256d load_pd(const std::byte* p) {
  return _mm256_loadu_pd(reinterpret_cast<const double*>(p));
}
BNSCOPE_AVX2 inline void store_pd(std::byte* p, __m256d v) {
  _mm256_storeu_pd(reinterpret_cast<double*>(p), v);
}
BNSCOPE_AVX2 inline __m128i load_si(const std::byte* p) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
}
BNSCOPE_AVX2 inline void store_si(std::byte* p, __m128i v) {
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v);
}

// K x K element tiles: K rows of src at s (stride ss bytes) become K rows of dst at d (stride ds).
struct Tile32 {  // 8 x 8 of 4 bytes
  static constexpr i64 kK = 8;
  static constexpr std::size_t kSize = 4;
  BNSCOPE_AVX2 static inline void move(const std::byte* s, i64 ss, std::byte* d, i64 ds) {
    const __m256 r0 = load_ps(s + 0 * ss), r1 = load_ps(s + 1 * ss), r2 = load_ps(s + 2 * ss),
                 r3 = load_ps(s + 3 * ss), r4 = load_ps(s + 4 * ss), r5 = load_ps(s + 5 * ss),
                 r6 = load_ps(s + 6 * ss), r7 = load_ps(s + 7 * ss);
    const __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
    const __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
    const __m256 t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5);
    const __m256 t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
    const __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);
    const __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
    const __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE);
    const __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
    store_ps(d + 0 * ds, _mm256_permute2f128_ps(u0, u4, 0x20));
    store_ps(d + 1 * ds, _mm256_permute2f128_ps(u1, u5, 0x20));
    store_ps(d + 2 * ds, _mm256_permute2f128_ps(u2, u6, 0x20));
    store_ps(d + 3 * ds, _mm256_permute2f128_ps(u3, u7, 0x20));
    store_ps(d + 4 * ds, _mm256_permute2f128_ps(u0, u4, 0x31));
    store_ps(d + 5 * ds, _mm256_permute2f128_ps(u1, u5, 0x31));
    store_ps(d + 6 * ds, _mm256_permute2f128_ps(u2, u6, 0x31));
    store_ps(d + 7 * ds, _mm256_permute2f128_ps(u3, u7, 0x31));
  }
};

struct Tile64 {  // 4 x 4 of 8 bytes
  static constexpr i64 kK = 4;
  static constexpr std::size_t kSize = 8;
  BNSCOPE_AVX2 static inline void move(const std::byte* s, i64 ss, std::byte* d, i64 ds) {
    const __m256d r0 = load_pd(s + 0 * ss), r1 = load_pd(s + 1 * ss), r2 = load_pd(s + 2 * ss),
                  r3 = load_pd(s + 3 * ss);
    const __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1);
    const __m256d t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
    store_pd(d + 0 * ds, _mm256_permute2f128_pd(t0, t2, 0x20));
    store_pd(d + 1 * ds, _mm256_permute2f128_pd(t1, t3, 0x20));
    store_pd(d + 2 * ds, _mm256_permute2f128_pd(t0, t2, 0x31));
    store_pd(d + 3 * ds, _mm256_permute2f128_pd(t1, t3, 0x31));
  }
};

struct Tile16 {  // 8 x 8 of 2 bytes
  static constexpr i64 kK = 8;
  static constexpr std::size_t kSize = 2;
  BNSCOPE_AVX2 static inline void move(const std::byte* s, i64 ss, std::byte* d, i64 ds) {
    const __m128i r0 = load_si(s + 0 * ss), r1 = load_si(s + 1 * ss), r2 = load_si(s + 2 * ss),
                  r3 = load_si(s + 3 * ss), r4 = load_si(s + 4 * ss), r5 = load_si(s + 5 * ss),
                  r6 = load_si(s + 6 * ss), r7 = load_si(s + 7 * ss);
    const __m128i a = _mm_unpacklo_epi16(r0, r1), b = _mm_unpackhi_epi16(r0, r1);
    const __m128i c = _mm_unpacklo_epi16(r2, r3), e = _mm_unpackhi_epi16(r2, r3);
    const __m128i f = _mm_unpacklo_epi16(r4, r5), g = _mm_unpackhi_epi16(r4, r5);
    const __m128i h = _mm_unpacklo_epi16(r6, r7), k = _mm_unpackhi_epi16(r6, r7);
    const __m128i i0 = _mm_unpacklo_epi32(a, c), i1 = _mm_unpackhi_epi32(a, c);
    const __m128i i2 = _mm_unpacklo_epi32(b, e), i3 = _mm_unpackhi_epi32(b, e);
    const __m128i j0 = _mm_unpacklo_epi32(f, h), j1 = _mm_unpackhi_epi32(f, h);
    const __m128i j2 = _mm_unpacklo_epi32(g, k), j3 = _mm_unpackhi_epi32(g, k);
    store_si(d + 0 * ds, _mm_unpacklo_epi64(i0, j0));
    store_si(d + 1 * ds, _mm_unpackhi_epi64(i0, j0));
    store_si(d + 2 * ds, _mm_unpacklo_epi64(i1, j1));
    store_si(d + 3 * ds, _mm_unpackhi_epi64(i1, j1));
    store_si(d + 4 * ds, _mm_unpacklo_epi64(i2, j2));
    store_si(d + 5 * ds, _mm_unpackhi_epi64(i2, j2));
    store_si(d + 6 * ds, _mm_unpacklo_epi64(i3, j3));
    store_si(d + 7 * ds, _mm_unpackhi_epi64(i3, j3));
  }
};

// Tiles of kTileR x kTileC elements walked with the K x K register move: a tile's 32 source and
// 32 destination rows stay in L1 while it is done. The ragged right and bottom edges of each tile
// go element by element.
template <class Tile>
BNSCOPE_AVX2 void vector_tiles(const std::byte* src, std::byte* dst, i64 rows, i64 cols, i64 r0,
                               i64 r1) {
  constexpr i64 K = Tile::kK, ES = static_cast<i64>(Tile::kSize);
  constexpr i64 kTileR = 32, kTileC = 32;
  const i64 ss = cols * ES, ds = rows * ES;
  for (i64 rb = r0; rb < r1; rb += kTileR) {
    const i64 re = std::min(rb + kTileR, r1);
    const i64 rv = rb + (re - rb) / K * K;
    for (i64 cb = 0; cb < cols; cb += kTileC) {
      const i64 ce = std::min(cb + kTileC, cols);
      const i64 cv = cb + (ce - cb) / K * K;
      for (i64 r = rb; r < rv; r += K)
        for (i64 c = cb; c < cv; c += K)
          Tile::move(src + (r * cols + c) * ES, ss, dst + (c * rows + r) * ES, ds);
      scalar_block<Tile::kSize>(src, dst, rows, cols, rb, rv, cv, ce);
      scalar_block<Tile::kSize>(src, dst, rows, cols, rv, re, cb, ce);
    }
  }
}

bool has_avx2() {
  static const bool yes = __builtin_cpu_supports("avx2");
  return yes;
}

#endif

}  // namespace

void transpose_rows_scalar(std::size_t es, const std::byte* src, std::byte* dst, i64 rows, i64 cols,
                           i64 r0, i64 r1) {
  switch (es) {
    case 1:
      return scalar_tiles<1>(src, dst, rows, cols, r0, r1);
    case 2:
      return scalar_tiles<2>(src, dst, rows, cols, r0, r1);
    case 4:
      return scalar_tiles<4>(src, dst, rows, cols, r0, r1);
    case 8:
      return scalar_tiles<8>(src, dst, rows, cols, r0, r1);
    case 16:
      return scalar_tiles<16>(src, dst, rows, cols, r0, r1);
    default:
      return scalar_any(es, src, dst, rows, cols, r0, r1);
  }
}

void transpose_rows(std::size_t es, const std::byte* src, std::byte* dst, i64 rows, i64 cols,
                    i64 r0, i64 r1) {
#if BNSCOPE_TRANSPOSE_X86
  if (has_avx2()) {
    switch (es) {
      case 2:
        return vector_tiles<Tile16>(src, dst, rows, cols, r0, r1);
      case 4:
        return vector_tiles<Tile32>(src, dst, rows, cols, r0, r1);
      case 8:
        return vector_tiles<Tile64>(src, dst, rows, cols, r0, r1);
      default:
        break;
    }
  }
#endif
  transpose_rows_scalar(es, src, dst, rows, cols, r0, r1);
}

}  // namespace bnscope
