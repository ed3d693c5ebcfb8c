#include "tensor/stream_bytes.h"

#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace bnscope {

void stream_bytes(void* dst, const void* src, std::size_t n) {
  auto* d = static_cast<char*>(dst);
  const auto* s = static_cast<const char*>(src);
  std::size_t i = 0;
#if defined(__SSE2__)
  for (; i + 64 <= n; i += 64) {
    const auto* p = reinterpret_cast<const __m128i*>(s + i);
    auto* q = reinterpret_cast<__m128i*>(d + i);
    const __m128i a = _mm_loadu_si128(p), b = _mm_loadu_si128(p + 1);
    const __m128i c = _mm_loadu_si128(p + 2), e = _mm_loadu_si128(p + 3);
    _mm_stream_si128(q, a);
    _mm_stream_si128(q + 1, b);
    _mm_stream_si128(q + 2, c);
    _mm_stream_si128(q + 3, e);
  }
#endif
  std::memcpy(d + i, s + i, n - i);
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

}  // namespace bnscope
