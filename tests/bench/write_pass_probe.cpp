// The channels-last write pass taken apart: the backend's write_pass against its own vector sweep
// (simd::rows_affine) over the same chunks with the coefficient tables on a cache line and 16
// bytes off one, and a hand-written AVX-512 loop, alternated on the same buffers, to find what
// keeps a core short of the stream probe on a host without hardware counters
// (docs/performance-zen5-avx512.md: "The write pass's tables off a cache line").
//
//   cmake --build build/release --target bnscope_write_pass_probe
//   build/release/tests/bench/bnscope_write_pass_probe [THREADS] [REPS]
//
// 32x56x56x256 float32; THREADS (default 1) for write_pass, the other loops on one; REPS
// (default 15). Prints, per loop, the median and the best of REPS runs in GB/s over x, dy and
// dx. Needs AVX-512 at run time (says so and exits otherwise).

#include <immintrin.h>
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include "backends/cpu/line_vector.h"
#include "backends/cpu/passes.h"
#include "backends/cpu/simd.h"

using namespace bnscope;
using namespace bnscope::cpu;

namespace {

constexpr std::int64_t kRow = 256, kChunk = 65536;  // the backend's chunk of 256-lane rows

struct Tables {
  LineVector<float> store = LineVector<float>(4 * (kRow + 16));
  float* p;
  float* q;
  float* m;
  float* r;
  explicit Tables(std::size_t offset) {
    float* at = store.data() + offset;
    p = at, q = p + kRow + 16, m = q + kRow + 16, r = m + kRow + 16;
    std::fill_n(p, kRow, 0.5f), std::fill_n(q, kRow, 0.25f);
    std::fill_n(m, kRow, 0.1f), std::fill_n(r, kRow, 0.3f);
  }
};

// Chunks last first, as write_pass walks them.
void sweep(const float* a, const float* b, float* o, std::int64_t n, const Tables& t, bool pf) {
  for (std::int64_t k = n / kChunk - 1; k >= 0; --k) {
    simd::Sweep s{simd::Elem::F32, false, a + k * kChunk, b + k * kChunk, o + k * kChunk, true};
    s.nan_free = true;
    s.prefetch = pf;
    simd::rows_affine(s, kChunk / kRow, kRow, kRow, t.p, t.q, t.m, t.r);
  }
  _mm_sfence();
}

void hand(const float* a, const float* b, float* o, std::int64_t n, const Tables& t) {
  for (std::int64_t k = n / kChunk - 1; k >= 0; --k)
    for (std::int64_t row = k * kChunk; row < (k + 1) * kChunk; row += kRow)
      for (std::int64_t j = 0; j < kRow; j += 16) {
        const __m512 av = _mm512_loadu_ps(a + row + j), bv = _mm512_loadu_ps(b + row + j);
        const __m512 d = _mm512_sub_ps(bv, _mm512_loadu_ps(t.r + j));
        const __m512 e =
            _mm512_mul_ps(_mm512_sub_ps(av, _mm512_loadu_ps(t.m + j)), _mm512_loadu_ps(t.q + j));
        _mm512_stream_ps(o + row + j, _mm512_mul_ps(_mm512_loadu_ps(t.p + j), _mm512_add_ps(d, e)));
      }
  _mm_sfence();
}

float* huge_alloc(std::int64_t n) {
  const std::size_t page = std::size_t{2} << 20;
  const std::size_t bytes = (static_cast<std::size_t>(n) * 4 + page - 1) / page * page;
  auto* p = static_cast<float*>(std::aligned_alloc(page, bytes));
  ::madvise(p, bytes, MADV_HUGEPAGE);  // as the backend's tensors
  return p;
}

}  // namespace

int main(int argc, char** argv) {
  if (!__builtin_cpu_supports("avx512f")) {
    std::fprintf(stderr, "write_pass_probe: this host has no AVX-512; the hand loop needs it\n");
    return 1;
  }
  const int threads = argc > 1 ? std::atoi(argv[1]) : 1;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 15;
  const std::int64_t rows = 32 * 56 * 56, n = rows * kRow;
  float *a = huge_alloc(n), *b = huge_alloc(n), *o = huge_alloc(n);
  for (std::int64_t i = 0; i < n; ++i) a[i] = float(i % 7), b[i] = float(i % 5), o[i] = 0;
  const Tables on_line(0), off_line(4);

  ThreadPool pool;
  Scratch scratch;
  RunContext ctx;
  Exec ex;
  ex.pool = &pool, ex.threads = threads, ex.ctx = &ctx, ex.nt = true, ex.scratch = &scratch;
  const Geometry g = make_geometry(ChannelView{rows, kRow, 1});
  Affine<float> f;
  f.p.assign(on_line.p, on_line.p + kRow), f.q.assign(on_line.q, on_line.q + kRow);
  f.m.assign(on_line.m, on_line.m + kRow), f.r.assign(on_line.r, on_line.r + kRow);
  f.nan_free = true;

  const std::vector<std::pair<const char*, std::function<void()>>> loops = {
      {"write_pass", [&] { write_pass<float>(ex, g, a, b, o, f); }},
      {"rows_affine, tables on a line", [&] { sweep(a, b, o, n, on_line, false); }},
      {"  with the prefetch", [&] { sweep(a, b, o, n, on_line, true); }},
      {"rows_affine, 16 bytes off", [&] { sweep(a, b, o, n, off_line, false); }},
      {"  with the prefetch", [&] { sweep(a, b, o, n, off_line, true); }},
      {"hand loop, tables on a line", [&] { hand(a, b, o, n, on_line); }},
      {"hand loop, 16 bytes off", [&] { hand(a, b, o, n, off_line); }},
  };
  std::vector<std::vector<double>> seconds(loops.size());
  for (int rep = 0; rep < reps; ++rep)
    for (std::size_t l = 0; l < loops.size(); ++l) {
      const auto start = std::chrono::steady_clock::now();
      loops[l].second();
      seconds[l].push_back(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
  std::printf("write_pass on %d thread(s); the hand-written and rows_affine loops on one\n",
              threads);
  for (std::size_t l = 0; l < loops.size(); ++l) {
    std::vector<double>& s = seconds[l];
    std::sort(s.begin(), s.end());
    const double bytes = 12.0 * static_cast<double>(n);
    std::printf("%-32s median %6.1f GB/s  best %6.1f GB/s\n", loops[l].first,
                bytes / s[s.size() / 2] / 1e9, bytes / s[0] / 1e9);
  }
  std::free(a), std::free(b), std::free(o);
  return 0;
}
