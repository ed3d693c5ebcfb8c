#include "io/crc32.h"

#include <zlib.h>

#include <algorithm>
#include <vector>

#include "tensor/parallel.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define BNSCOPE_CRC32_CLMUL 1
#endif

namespace bnscope {

namespace {

uLong crc_table(uLong crc, const Bytef* p, std::size_t left) {
  while (left) {
    const auto n = static_cast<uInt>(std::min<std::size_t>(left, 1u << 30));
    crc = crc32(crc, p, n);
    p += n;
    left -= n;
  }
  return crc;
}

#if BNSCOPE_CRC32_CLMUL

#define BNSCOPE_CLMUL_TARGET __attribute__((target("pclmul,sse4.1")))
#define BNSCOPE_VCLMUL_TARGET \
  __attribute__((target("avx512f,avx512vl,avx512bw,avx512dq,vpclmulqdq,pclmul,sse4.1")))

BNSCOPE_CLMUL_TARGET inline __m128i load16(const unsigned char* q) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(q));
}

// x folded 128 bits ahead over the two constants in k, plus the next 16 bytes.
BNSCOPE_CLMUL_TARGET inline __m128i fold16(__m128i x, __m128i k, __m128i next) {
  const __m128i lo = _mm_clmulepi64_si128(x, k, 0x00);
  const __m128i hi = _mm_clmulepi64_si128(x, k, 0x11);
  return _mm_xor_si128(_mm_xor_si128(hi, lo), next);
}

// The folding constants: (x^(d+32) mod P)' << 1 and (x^(d-32) mod P)' << 1 (' for bit reflection)
// for a fold over d bits, as the paper below derives them.
alignas(16) constexpr std::uint64_t kFold512[] = {0x0154442bd4, 0x01c6e41596};
alignas(16) constexpr std::uint64_t kFold128[] = {0x01751997d0, 0x00ccaa009e};
alignas(16) constexpr std::uint64_t kFold64[] = {0x0163cd6124, 0x0000000000};
alignas(16) constexpr std::uint64_t kBarrett[] = {0x01db710641, 0x01f7011641};
// d = 4 x 512: the four 64-byte lanes of the AVX-512 loop.
alignas(64) constexpr std::uint64_t kFold2048x4[] = {0x011542778a, 0x01322d1430, 0x011542778a,
                                                     0x01322d1430, 0x011542778a, 0x01322d1430,
                                                     0x011542778a, 0x01322d1430};
alignas(64) constexpr std::uint64_t kFold512x4[] = {0x0154442bd4, 0x01c6e41596, 0x0154442bd4,
                                                    0x01c6e41596, 0x0154442bd4, 0x01c6e41596,
                                                    0x0154442bd4, 0x01c6e41596};

BNSCOPE_CLMUL_TARGET inline __m128i constants(const std::uint64_t* k) {
  return _mm_load_si128(reinterpret_cast<const __m128i*>(k));
}

// 16-byte blocks folded into x, then 128 bits to 64, then 64 to 32 by Barrett reduction.
BNSCOPE_CLMUL_TARGET std::uint32_t reduce128(__m128i x1, const unsigned char* p, std::size_t n) {
  __m128i k = constants(kFold128);
  for (; n >= 16; p += 16, n -= 16) x1 = fold16(x1, k, load16(p));
  const __m128i low32 = _mm_setr_epi32(~0, 0, ~0, 0);
  __m128i x2 = _mm_clmulepi64_si128(x1, k, 0x10);
  x1 = _mm_xor_si128(_mm_srli_si128(x1, 8), x2);
  k = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(kFold64));
  x2 = _mm_srli_si128(x1, 4);
  x1 = _mm_xor_si128(_mm_clmulepi64_si128(_mm_and_si128(x1, low32), k, 0x00), x2);
  k = constants(kBarrett);
  x2 = _mm_clmulepi64_si128(_mm_and_si128(x1, low32), k, 0x10);
  x2 = _mm_clmulepi64_si128(_mm_and_si128(x2, low32), k, 0x00);
  x1 = _mm_xor_si128(x1, x2);
  return static_cast<std::uint32_t>(_mm_extract_epi32(x1, 1));
}

// Carry-less multiplication folding (Gopal et al., "Fast CRC Computation for Generic
// Polynomials Using PCLMULQDQ Instruction", Intel 2009) in the bit-reflected domain of the zip
// polynomial 0xEDB88320, then a Barrett reduction: the same value as zlib's table walk, 4 x 16
// bytes per step. Takes and returns the CRC register uncomplemented (~crc of zlib's values);
// n a multiple of 16, at least 64.
BNSCOPE_CLMUL_TARGET std::uint32_t fold_crc(std::uint32_t reg, const unsigned char* p,
                                            std::size_t n) {
  __m128i x1 = load16(p), x2 = load16(p + 16), x3 = load16(p + 32), x4 = load16(p + 48);
  x1 = _mm_xor_si128(x1, _mm_cvtsi32_si128(static_cast<int>(reg)));
  __m128i k = constants(kFold512);
  p += 64;
  n -= 64;
  for (; n >= 64; p += 64, n -= 64) {
    x1 = fold16(x1, k, load16(p));
    x2 = fold16(x2, k, load16(p + 16));
    x3 = fold16(x3, k, load16(p + 32));
    x4 = fold16(x4, k, load16(p + 48));
  }
  k = constants(kFold128);
  x1 = fold16(x1, k, x2);
  x1 = fold16(x1, k, x3);
  x1 = fold16(x1, k, x4);
  return reduce128(x1, p, n);
}

BNSCOPE_VCLMUL_TARGET inline __m512i load64(const unsigned char* q) {
  return _mm512_loadu_si512(q);
}

// 128-bit lane i of x (the masked form: GCC 12's plain one reads an undefined register).
template <int I>
BNSCOPE_VCLMUL_TARGET inline __m128i lane(__m512i x) {
  return _mm512_maskz_extracti32x4_epi32(0xf, x, I);
}

// Four 128-bit lanes each folded over the constants in k, plus the next 64 bytes.
BNSCOPE_VCLMUL_TARGET inline __m512i fold64(__m512i x, __m512i k, __m512i next) {
  const __m512i lo = _mm512_clmulepi64_epi128(x, k, 0x00);
  const __m512i hi = _mm512_clmulepi64_epi128(x, k, 0x11);
  return _mm512_ternarylogic_epi64(hi, lo, next, 0x96);  // hi ^ lo ^ next
}

// fold_crc with VPCLMULQDQ on 512-bit registers: 4 x 64 bytes per step, the four registers then
// folded into one, that one's lanes into 128 bits, and the rest as fold_crc ends. n a multiple
// of 16, at least 256.
BNSCOPE_VCLMUL_TARGET std::uint32_t fold_crc_512(std::uint32_t reg, const unsigned char* p,
                                                 std::size_t n) {
  __m512i x1 = load64(p), x2 = load64(p + 64), x3 = load64(p + 128), x4 = load64(p + 192);
  x1 = _mm512_xor_si512(x1, _mm512_zextsi128_si512(_mm_cvtsi32_si128(static_cast<int>(reg))));
  __m512i k = _mm512_load_si512(kFold2048x4);
  p += 256;
  n -= 256;
  for (; n >= 256; p += 256, n -= 256) {
    x1 = fold64(x1, k, load64(p));
    x2 = fold64(x2, k, load64(p + 64));
    x3 = fold64(x3, k, load64(p + 128));
    x4 = fold64(x4, k, load64(p + 192));
  }
  k = _mm512_load_si512(kFold512x4);
  x1 = fold64(x1, k, x2);
  x1 = fold64(x1, k, x3);
  x1 = fold64(x1, k, x4);
  for (; n >= 64; p += 64, n -= 64) x1 = fold64(x1, k, load64(p));
  const __m128i k128 = constants(kFold128);
  __m128i a = lane<0>(x1);
  a = fold16(a, k128, lane<1>(x1));
  a = fold16(a, k128, lane<2>(x1));
  a = fold16(a, k128, lane<3>(x1));
  return reduce128(a, p, n);
}

Crc32Path cpu_crc_path() {
  static const Crc32Path best = [] {
    if (!__builtin_cpu_supports("pclmul") || !__builtin_cpu_supports("sse4.1"))
      return Crc32Path::Zlib;
    if (__builtin_cpu_supports("vpclmulqdq") && __builtin_cpu_supports("avx512f") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq"))
      return Crc32Path::Vclmul512;
    return Crc32Path::Clmul;
  }();
  return best;
}

#else

Crc32Path cpu_crc_path() {
  return Crc32Path::Zlib;
}

#endif

}  // namespace

Crc32Path crc32_best_path() {
  return cpu_crc_path();
}

std::uint32_t crc32_bytes_by(Crc32Path path, std::uint32_t crc, const void* data, std::size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  path = std::min(path, cpu_crc_path());
#if BNSCOPE_CRC32_CLMUL
  if (path != Crc32Path::Zlib && n >= 64) {
    const std::size_t whole = n & ~std::size_t{15};
    crc = path == Crc32Path::Vclmul512 && whole >= 256 ? ~fold_crc_512(~crc, p, whole)
                                                       : ~fold_crc(~crc, p, whole);
    p += whole;
    n -= whole;
  }
#endif
  if (!n) return crc;
  return static_cast<std::uint32_t>(crc_table(crc, p, n));
}

std::uint32_t crc32_bytes(std::uint32_t crc, const void* data, std::size_t n) {
  return crc32_bytes_by(Crc32Path::Vclmul512, crc, data, n);
}

std::uint32_t crc32_update(std::uint32_t crc, std::span<const std::byte> data) {
  const auto* p = reinterpret_cast<const unsigned char*>(data.data());
  const auto n = static_cast<std::int64_t>(data.size());
  const int parts = parallel_parts(n, std::int64_t{8} << 20);
  if (parts == 1) return crc32_bytes(crc, p, data.size());
  std::vector<unsigned long> crcs(static_cast<std::size_t>(parts));
  std::vector<std::int64_t> sizes(crcs.size());
  parallel_for(n, parts, [&](int k, std::int64_t b, std::int64_t e) {
    crcs[static_cast<std::size_t>(k)] = crc32_bytes(0, p + b, static_cast<std::size_t>(e - b));
    sizes[static_cast<std::size_t>(k)] = e - b;
  });
  return crc32_join(crc, crcs, sizes);
}

std::uint32_t crc32_join(std::uint32_t crc, const std::vector<unsigned long>& part_crcs,
                         const std::vector<std::int64_t>& part_sizes) {
  uLong out = crc;
  for (std::size_t k = 0; k < part_crcs.size(); ++k)
    out = crc32_combine(out, part_crcs[k], static_cast<z_off_t>(part_sizes[k]));
  return static_cast<std::uint32_t>(out);
}

}  // namespace bnscope
