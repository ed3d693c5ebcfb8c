// The single sweep taken apart: loops with its memory traffic (read x and dy, write dx = p*dy)
// to which the cpu backend's pieces are added one at a time, to find what limits it on a host
// that exposes no hardware counters (docs/performance-zen4-avx512.md).
//
//   g++ -O2 -mavx512f -std=c++20 -pthread scripts/sweep_probe.cpp -o /tmp/sweep_probe
//   /tmp/sweep_probe ELEMENTS THREADS [REPS]      e.g. 6422528 2 40
//
// Prints, per loop, the median and the best of REPS runs in GB/s over the three tensors (two for
// the copy). AVX-512 only; float32.

#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <thread>
#include <vector>

namespace {

float sink[64];

// x, dy, dx: one thread's slice. n a multiple of 16.
struct Slice {
  const float* a;
  const float* b;
  float* o;
  std::size_t n;
  int t;
};

template <bool NT, int Ahead, int Hint>
void stream(const Slice& s) {
  __m512 s0 = _mm512_setzero_ps(), s1 = s0;
  const __m512 p = _mm512_set1_ps(0.5f);
  for (std::size_t i = 0; i < s.n; i += 16) {
    if constexpr (Ahead > 0) {
      _mm_prefetch(reinterpret_cast<const char*>(s.a + i + Ahead / 4), static_cast<_mm_hint>(Hint));
      _mm_prefetch(reinterpret_cast<const char*>(s.b + i + Ahead / 4), static_cast<_mm_hint>(Hint));
    }
    const __m512 av = _mm512_loadu_ps(s.a + i), bv = _mm512_loadu_ps(s.b + i);
    s0 = _mm512_add_ps(s0, bv);
    s1 = _mm512_add_ps(s1, _mm512_mul_ps(bv, av));
    if constexpr (NT)
      _mm512_stream_ps(s.o + i, _mm512_mul_ps(p, bv));
    else
      _mm512_storeu_ps(s.o + i, _mm512_mul_ps(p, bv));
  }
  sink[s.t * 16] = _mm512_reduce_add_ps(_mm512_add_ps(s0, s1));
  _mm_sfence();
}

void copy(const Slice& s) {
  for (std::size_t i = 0; i < s.n; i += 16) _mm512_stream_ps(s.o + i, _mm512_loadu_ps(s.a + i));
  _mm_sfence();
}

// The backend's wide-row single sweep: L lanes of accumulators, centre and scale in memory.
// Mode 0 as the backend; 1 without the accumulator stores; 2 accumulators in registers;
// 3 without the centre and scale loads. Misalign shifts the lane arrays off a cache line. (The
// backend's loop before row tiles.)
template <int Mode>
void rows(const Slice& s, std::size_t L, std::size_t misalign) {
  static thread_local std::vector<float> store;
  store.assign(4 * (L + 16) + 32, 0.5f);
  float* base = store.data();
  base += ((64 - reinterpret_cast<std::uintptr_t>(base) % 64) % 64) / 4 + misalign;
  float* acc0 = base;
  float* acc1 = acc0 + L + 16;
  float* m = acc1 + L + 16;
  float* p = m + L + 16;
  __m512 r0 = _mm512_setzero_ps(), r1 = r0;
  const __m512 cm = _mm512_set1_ps(0.25f), cp = _mm512_set1_ps(0.5f);
  for (std::size_t r = 0; r + L <= s.n; r += L) {
    const float* pa = s.a + r;
    const float* pb = s.b + r;
    float* po = s.o + r;
    for (std::size_t j = 0; j < L; j += 16) {
      const __m512 bv = _mm512_loadu_ps(pb + j), av = _mm512_loadu_ps(pa + j);
      const __m512 mv = Mode == 3 ? cm : _mm512_loadu_ps(m + j);
      const __m512 pv = Mode == 3 ? cp : _mm512_loadu_ps(p + j);
      __m512 s0 = Mode == 2 ? r0 : _mm512_loadu_ps(acc0 + j);
      __m512 s1 = Mode == 2 ? r1 : _mm512_loadu_ps(acc1 + j);
      s0 = _mm512_add_ps(s0, bv);
      s1 = _mm512_add_ps(s1, _mm512_mul_ps(bv, _mm512_sub_ps(av, mv)));
      if constexpr (Mode == 0 || Mode == 3) {
        _mm512_storeu_ps(acc0 + j, s0);
        _mm512_storeu_ps(acc1 + j, s1);
      } else {
        r0 = s0;
        r1 = s1;
      }
      _mm512_stream_ps(po + j, _mm512_mul_ps(pv, bv));
    }
  }
  sink[s.t * 16] = acc0[3] + acc1[5] + _mm512_reduce_add_ps(_mm512_add_ps(r0, r1));
  _mm_sfence();
}

// The backend's wide-row single sweep now: tiles of `tile` rows walked 4 vectors (64 lanes) of
// channels at a time with their accumulators in registers, the next tile prefetched into L2 in
// address order while this one is walked (Prefetch false: without that prefetch).
template <bool Prefetch>
void tiles(const Slice& s, std::size_t L, std::size_t tile) {
  static thread_local std::vector<float> store;
  store.assign(4 * (L + 16) + 32, 0.5f);
  float* base = store.data();
  base += ((64 - reinterpret_cast<std::uintptr_t>(base) % 64) % 64) / 4;
  float* acc0 = base;
  float* acc1 = acc0 + L + 16;
  const float* m = acc1 + L + 16;
  const float* p = m + L + 16;
  const std::size_t rows = s.n / L;
  for (std::size_t k0 = 0; k0 < rows; k0 += tile) {
    const std::size_t nr = std::min(tile, rows - k0);
    const char* ahead_a = reinterpret_cast<const char*>(s.a + (k0 + tile) * L);
    const char* ahead_b = reinterpret_cast<const char*>(s.b + (k0 + tile) * L);
    for (std::size_t j = 0; j < L; j += 64) {
      __m512 s0[4], s1[4], mv[4], pv[4];
      for (int v = 0; v < 4; ++v) {
        s0[v] = _mm512_loadu_ps(acc0 + j + 16 * v);
        s1[v] = _mm512_loadu_ps(acc1 + j + 16 * v);
        mv[v] = _mm512_loadu_ps(m + j + 16 * v);
        pv[v] = _mm512_loadu_ps(p + j + 16 * v);
      }
      for (std::size_t k = k0; k < k0 + nr; ++k)
        for (int v = 0; v < 4; ++v) {
          if constexpr (Prefetch) {
            _mm_prefetch(ahead_a, _MM_HINT_T1);
            _mm_prefetch(ahead_b, _MM_HINT_T1);
            ahead_a += 64;
            ahead_b += 64;
          }
          const std::size_t at = k * L + j + 16 * v;
          const __m512 bv = _mm512_loadu_ps(s.b + at), av = _mm512_loadu_ps(s.a + at);
          s0[v] = _mm512_add_ps(s0[v], bv);
          s1[v] = _mm512_add_ps(s1[v], _mm512_mul_ps(bv, _mm512_sub_ps(av, mv[v])));
          _mm512_stream_ps(s.o + at, _mm512_mul_ps(pv[v], bv));
        }
      for (int v = 0; v < 4; ++v) {
        _mm512_storeu_ps(acc0 + j + 16 * v, s0[v]);
        _mm512_storeu_ps(acc1 + j + 16 * v, s1[v]);
      }
    }
  }
  sink[s.t * 16] = acc0[3] + acc1[5];
  _mm_sfence();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s ELEMENTS THREADS [REPS]\n", argv[0]);
    return 2;
  }
  const std::size_t n = std::strtoull(argv[1], nullptr, 10) / 32 * 32;
  const int threads = std::atoi(argv[2]) > 1 ? 2 : 1;
  const int reps = argc > 3 ? std::atoi(argv[3]) : 30;
  auto alloc = [&] { return static_cast<float*>(std::aligned_alloc(64, n * sizeof(float))); };
  float *a = alloc(), *b = alloc(), *o = alloc();
  for (std::size_t i = 0; i < n; ++i) a[i] = float(i % 7), b[i] = float(i % 5), o[i] = 0;
  const auto bench = [&](const char* name, int tensors,
                         const std::function<void(const Slice&)>& f) {
    std::vector<double> ts;
    for (int r = 0; r < reps; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      if (threads == 1) {
        f({a, b, o, n, 0});
      } else {
        const std::size_t h = n / 2;
        std::thread other([&] { f({a + h, b + h, o + h, n - h, 1}); });
        f({a, b, o, h, 0});
        other.join();
      }
      ts.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(ts.begin(), ts.end());
    const double bytes = tensors * 4.0 * static_cast<double>(n);
    std::printf("%-28s threads %d  median %6.1f GB/s  best %6.1f GB/s\n", name, threads,
                bytes / ts[ts.size() / 2] / 1e9, bytes / ts[0] / 1e9);
  };
  bench("copy (non-temporal)", 2, copy);
  bench("stream dx", 3, stream<true, 0, 0>);
  bench("cached dx", 3, stream<false, 0, 0>);
  bench("stream dx, prefetcht0 2K", 3, stream<true, 2048, _MM_HINT_T0>);
  bench("stream dx, prefetchnta 2K", 3, stream<true, 2048, _MM_HINT_NTA>);
  bench("stream dx, prefetcht1 2K", 3, stream<true, 2048, _MM_HINT_T1>);
  bench("stream dx, prefetcht2 2K", 3, stream<true, 2048, _MM_HINT_T2>);
  for (std::size_t L : {1024, 2048}) {
    std::printf("-- rows of %zu lanes\n", L);
    bench("rows: as the backend", 3, [L](const Slice& s) { rows<0>(s, L, 0); });
    bench("rows: no accumulator stores", 3, [L](const Slice& s) { rows<1>(s, L, 0); });
    bench("rows: accumulators in regs", 3, [L](const Slice& s) { rows<2>(s, L, 0); });
    bench("rows: no centre/scale loads", 3, [L](const Slice& s) { rows<3>(s, L, 0); });
    bench("rows: 16 bytes off a line", 3, [L](const Slice& s) { rows<0>(s, L, 4); });
    // As the backend sizes it on a 1 MiB L2: x and dy of two tiles in a quarter of 7/8 of it.
    const std::size_t tile = std::max<std::size_t>(1, (1 << 20) * 7 / 8 / 4 / (4 * L * 4));
    bench("tiles: as the backend now", 3, [L, tile](const Slice& s) { tiles<true>(s, L, tile); });
    bench("tiles: no tile prefetch", 3, [L, tile](const Slice& s) { tiles<false>(s, L, tile); });
  }
  std::free(a);
  std::free(b);
  std::free(o);
  return 0;
}
