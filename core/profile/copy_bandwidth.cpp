#include "profile/copy_bandwidth.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "tensor/error.h"
#include "tensor/parallel.h"
#include "tensor/stream_bytes.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace bnscope {

namespace {

using Buffer = std::unique_ptr<std::byte[], CopyProbe::Free>;

Buffer allocate(std::size_t bytes) {
  auto* p = static_cast<std::byte*>(std::aligned_alloc(64, bytes));
  if (!p)
    throw Error(ErrorCode::ResourceExhausted,
                "copy bandwidth probe: cannot allocate " + std::to_string(bytes) + " bytes");
  return Buffer(p);
}

// Sums both slices 64 bytes at a time (integer additions, which cannot trap on any bits), so the
// loads cannot be dropped.
std::uint64_t read_slices(const std::byte* a, const std::byte* b, std::size_t n) {
#if defined(__SSE2__)
  __m128i s0 = _mm_setzero_si128(), s1 = s0, s2 = s0, s3 = s0;
  for (std::size_t i = 0; i < n; i += 64) {
    const auto* p = reinterpret_cast<const __m128i*>(a + i);
    const auto* q = reinterpret_cast<const __m128i*>(b + i);
    s0 = _mm_add_epi64(s0, _mm_add_epi64(_mm_load_si128(p), _mm_load_si128(p + 1)));
    s1 = _mm_add_epi64(s1, _mm_add_epi64(_mm_load_si128(p + 2), _mm_load_si128(p + 3)));
    s2 = _mm_add_epi64(s2, _mm_add_epi64(_mm_load_si128(q), _mm_load_si128(q + 1)));
    s3 = _mm_add_epi64(s3, _mm_add_epi64(_mm_load_si128(q + 2), _mm_load_si128(q + 3)));
  }
  alignas(16) std::uint64_t out[2];
  _mm_store_si128(reinterpret_cast<__m128i*>(out),
                  _mm_add_epi64(_mm_add_epi64(s0, s1), _mm_add_epi64(s2, s3)));
  return out[0] + out[1];
#else
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < n; i += 8) {
    std::uint64_t u, v;
    std::memcpy(&u, a + i, 8);
    std::memcpy(&v, b + i, 8);
    sum += u + v;
  }
  return sum;
#endif
}

// dst = a + b, bytewise (integer additions), with non-temporal stores where the CPU has them.
void add_slices(std::byte* dst, const std::byte* a, const std::byte* b, std::size_t n) {
#if defined(__SSE2__)
  for (std::size_t i = 0; i < n; i += 64) {
    const auto* p = reinterpret_cast<const __m128i*>(a + i);
    const auto* q = reinterpret_cast<const __m128i*>(b + i);
    auto* d = reinterpret_cast<__m128i*>(dst + i);
    for (int k = 0; k < 4; ++k)
      _mm_stream_si128(d + k, _mm_add_epi8(_mm_load_si128(p + k), _mm_load_si128(q + k)));
  }
  _mm_sfence();
#else
  for (std::size_t i = 0; i < n; ++i)
    dst[i] = static_cast<std::byte>(static_cast<unsigned>(a[i]) + static_cast<unsigned>(b[i]));
#endif
}

// Runs f(t, begin, end) on `threads` threads over 64-byte-aligned slices of [0, bytes).
template <class F>
void parallel_slices(int threads, std::size_t bytes, F f) {
  std::vector<std::thread> pool;
  const std::size_t lines = bytes / 64;
  for (int t = 0; t < threads; ++t) {
    const std::size_t begin = lines * static_cast<std::size_t>(t) / threads * 64;
    const std::size_t end = lines * static_cast<std::size_t>(t + 1) / threads * 64;
    pool.emplace_back([=] { f(begin, end); });
  }
  for (std::thread& th : pool) th.join();
}

std::size_t whole_lines(std::size_t bytes, const char* probe) {
  bytes = bytes / 64 * 64;
  if (bytes == 0) fail(std::string(probe) + " bandwidth probe: bytes must be at least 64");
  return bytes;
}

// Two fresh buffers of `bytes`, filled with `fill_a` and `fill_b` by the probing threads
// themselves (first touch), so page faults stay out of the timing.
std::pair<Buffer, Buffer> touched_buffers(int threads, std::size_t bytes, int fill_a, int fill_b) {
  Buffer a = allocate(bytes), b = allocate(bytes);
  parallel_slices(threads, bytes, [&](std::size_t from, std::size_t to) {
    std::memset(a.get() + from, fill_a, to - from);
    std::memset(b.get() + from, fill_b, to - from);
  });
  return {std::move(a), std::move(b)};
}

// The best rate of four timed runs of pass() over `bytes` counted `streams` times.
template <class F>
double best_of_four(std::size_t bytes, F pass, int streams = 2) {
  double best = 0;
  for (int rep = 0; rep < 4; ++rep) {
    const auto start = std::chrono::steady_clock::now();
    pass();
    const std::chrono::duration<double> dt = std::chrono::steady_clock::now() - start;
    best = std::max(best, streams * static_cast<double>(bytes) / dt.count());
  }
  return best;
}

}  // namespace

void CopyProbe::Free::operator()(std::byte* p) const {
  std::free(p);
}

CopyProbe::CopyProbe(int threads, std::size_t bytes)
    : threads_(resolve_threads(threads)), bytes_(whole_lines(bytes, "copy")) {
  std::tie(src_, dst_) = touched_buffers(threads_, bytes_, 1, 0);
}

double CopyProbe::measure() {
  return measure_copy_bandwidth(threads_, src_.get(), dst_.get(), bytes_);
}

double measure_copy_bandwidth(int threads, std::size_t bytes) {
  return CopyProbe(threads, bytes).measure();
}

double measure_copy_bandwidth(int threads, std::byte* src, std::byte* dst, std::size_t bytes) {
  threads = resolve_threads(threads);
  bytes = whole_lines(bytes, "copy");
  if (reinterpret_cast<std::uintptr_t>(src) % 64 || reinterpret_cast<std::uintptr_t>(dst) % 64)
    throw Error(ErrorCode::Internal, "copy bandwidth probe: buffers must be 64-byte aligned");
  // The caller's memory is in use already: no first touch (a pass of writes over both buffers,
  // as long as a copy). Were some pages still fresh, only the first copy would fault them in,
  // and the best of the copies is taken.
  return best_of_four(bytes, [&] {
    parallel_slices(threads, bytes,
                    [&](std::size_t b, std::size_t e) { stream_bytes(dst + b, src + b, e - b); });
  });
}

double measure_read_bandwidth(int threads, std::size_t bytes) {
  threads = resolve_threads(threads);
  bytes = whole_lines(bytes, "read");
  Buffer a, b;  // not a structured binding: clang before 16 cannot capture one in a lambda
  std::tie(a, b) = touched_buffers(threads, bytes, 1, 2);
  std::atomic<std::uint64_t> total{0};
  const double best = best_of_four(bytes, [&] {
    parallel_slices(threads, bytes, [&](std::size_t from, std::size_t to) {
      total += read_slices(a.get() + from, b.get() + from, to - from);
    });
  });
  // The sums are the bytes added up (modulo 2^64): checking them keeps every load and proves the
  // slices covered both arrays once per repetition.
  const std::uint64_t per_pass = (bytes / 8) * (0x0101010101010101ull + 0x0202020202020202ull);
  if (total != 4 * per_pass)
    throw Error(ErrorCode::Internal, "read bandwidth probe: the slices did not cover the arrays");
  return best;
}

double measure_stream_bandwidth(int threads, std::size_t bytes) {
  threads = resolve_threads(threads);
  bytes = whole_lines(bytes, "stream");
  Buffer a, b;  // not a structured binding: clang before 16 cannot capture one in a lambda
  std::tie(a, b) = touched_buffers(threads, bytes, 1, 2);
  Buffer out = allocate(bytes);
  parallel_slices(threads, bytes, [&](std::size_t from, std::size_t to) {
    std::memset(out.get() + from, 0, to - from);
  });
  const double best = best_of_four(
      bytes,
      [&] {
        parallel_slices(threads, bytes, [&](std::size_t from, std::size_t to) {
          add_slices(out.get() + from, a.get() + from, b.get() + from, to - from);
        });
      },
      3);
  // Every byte is 1 + 2: a slice left out, or written twice from the wrong place, shows.
  for (std::size_t i = 0; i < bytes; i += 4093)
    if (out[i] != std::byte{3})
      throw Error(ErrorCode::Internal,
                  "stream bandwidth probe: the slices did not cover the arrays");
  if (out[bytes - 1] != std::byte{3})
    throw Error(ErrorCode::Internal, "stream bandwidth probe: the slices did not cover the arrays");
  return best;
}

}  // namespace bnscope
