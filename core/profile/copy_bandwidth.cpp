#include "profile/copy_bandwidth.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "tensor/error.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace bnscope {

namespace {

struct FreeAligned {
  void operator()(std::byte* p) const { std::free(p); }
};
using Buffer = std::unique_ptr<std::byte[], FreeAligned>;

Buffer allocate(std::size_t bytes) {
  auto* p = static_cast<std::byte*>(std::aligned_alloc(64, bytes));
  if (!p)
    throw Error(ErrorCode::ResourceExhausted,
                "copy bandwidth probe: cannot allocate " + std::to_string(bytes) + " bytes");
  return Buffer(p);
}

void copy_slice(std::byte* dst, const std::byte* src, std::size_t n) {
#if defined(__SSE2__)
  for (std::size_t i = 0; i < n; i += 64) {
    const auto* s = reinterpret_cast<const __m128i*>(src + i);
    auto* d = reinterpret_cast<__m128i*>(dst + i);
    const __m128i a = _mm_load_si128(s), b = _mm_load_si128(s + 1);
    const __m128i c = _mm_load_si128(s + 2), e = _mm_load_si128(s + 3);
    _mm_stream_si128(d, a);
    _mm_stream_si128(d + 1, b);
    _mm_stream_si128(d + 2, c);
    _mm_stream_si128(d + 3, e);
  }
  _mm_sfence();
#else
  std::memcpy(dst, src, n);
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

}  // namespace

double measure_copy_bandwidth(int threads, std::size_t bytes) {
  if (threads <= 0) threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  bytes = bytes / 64 * 64;
  if (bytes == 0) fail("copy bandwidth probe: bytes must be at least 64");
  Buffer src = allocate(bytes), dst = allocate(bytes);
  // First touch of the fresh buffers from the copying threads, so page faults stay out of the
  // timing.
  parallel_slices(threads, bytes, [&](std::size_t b, std::size_t e) {
    std::memset(src.get() + b, 1, e - b);
    std::memset(dst.get() + b, 0, e - b);
  });
  return measure_copy_bandwidth(threads, src.get(), dst.get(), bytes);
}

double measure_copy_bandwidth(int threads, std::byte* src, std::byte* dst, std::size_t bytes) {
  if (threads <= 0) threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  bytes = bytes / 64 * 64;
  if (bytes == 0) fail("copy bandwidth probe: bytes must be at least 64");
  if (reinterpret_cast<std::uintptr_t>(src) % 64 || reinterpret_cast<std::uintptr_t>(dst) % 64)
    throw Error(ErrorCode::Internal, "copy bandwidth probe: buffers must be 64-byte aligned");
  // The caller's memory is in use already: no first touch (a pass of writes over both buffers,
  // as long as a copy). Were some pages still fresh, only the first copy would fault them in,
  // and the best of the copies is taken.
  double best = 0;
  for (int rep = 0; rep < 4; ++rep) {
    const auto start = std::chrono::steady_clock::now();
    parallel_slices(threads, bytes,
                    [&](std::size_t b, std::size_t e) { copy_slice(dst + b, src + b, e - b); });
    const std::chrono::duration<double> dt = std::chrono::steady_clock::now() - start;
    best = std::max(best, 2.0 * static_cast<double>(bytes) / dt.count());
  }
  return best;
}

}  // namespace bnscope
