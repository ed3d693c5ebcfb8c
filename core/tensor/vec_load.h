#pragma once
// W stored values as a vector of floats (or doubles for double storage), converted exactly as
// to_float does: the one source that the vector clones of the per-channel loops (channel scan,
// moments) compile for each target, so every clone reads the same numbers as the plain loops.
// GCC's generic vectors: each clone maps them to its own registers, IEEE semantics per element.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "tensor/dtype.h"

namespace bnscope {

template <class T, int W>
struct VecOf {
  typedef T type __attribute__((vector_size(sizeof(T) * W)));
};
template <class T, int W>
using Vec = typename VecOf<T, W>::type;

// W values of T at p as A (float for the 16-bit formats and float, double for double).
template <int W, class A, class T>
[[gnu::always_inline]] inline void load(const T* p, Vec<A, W>& x) {
  if constexpr (std::is_same_v<T, A>) {
    std::memcpy(&x, p, sizeof x);
  } else {
    using U = Vec<std::uint32_t, W>;
    Vec<std::uint16_t, W> h;
    std::memcpy(&h, p, sizeof h);
    const U u = __builtin_convertvector(h, U);
    if constexpr (std::is_same_v<T, bf16>) {
      x = reinterpret_cast<Vec<float, W>>(u << 16);
    } else {
      const U sign = (u & 0x8000u) << 16, e = u & 0x7c00u, m = u & 0x3ffu;
      const U normal = ((u & 0x7fffu) << 13) + (112u << 23);
      const U special = m << 13 | 0x7f800000u;
      // A subnormal half is m * 2^-24: an exact product of normal floats, whatever the FPU's
      // denormal modes.
      const Vec<float, W> sub =
          __builtin_convertvector(reinterpret_cast<Vec<std::int32_t, W>>(m), Vec<float, W>) *
          0x1p-24f;
      U bits = e == 0x7c00u ? special : normal;
      bits = e == 0u ? reinterpret_cast<U>(sub) : bits;
      x = reinterpret_cast<Vec<float, W>>(bits | sign);
    }
  }
}

// W values of T at p widened to double (exact from every stored dtype). An out parameter, as
// load's: a wide vector returned by value from a function built without AVX changes the ABI.
template <int W, class T>
[[gnu::always_inline]] inline void load_double(const T* p, Vec<double, W>& x) {
  if constexpr (std::is_same_v<T, double>) {
    std::memcpy(&x, p, sizeof x);
  } else {
    Vec<float, W> f;
    load<W, float>(p, f);
    x = __builtin_convertvector(f, Vec<double, W>);
  }
}

// The widest vector clone the CPU runs (Baseline where the clones are not built).
enum class VecIsa { Baseline, Avx2, Avx512 };
inline VecIsa best_vec_isa() {
#if defined(__x86_64__) && defined(__GNUC__)
  static const VecIsa isa = [] {
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq"))
      return VecIsa::Avx512;
    return __builtin_cpu_supports("avx2") ? VecIsa::Avx2 : VecIsa::Baseline;
  }();
  return isa;
#else
  return VecIsa::Baseline;
#endif
}

// The clone to run: the widest the CPU has, at most max_isa (tests pick narrower ones: 0 the
// baseline build's, 1 AVX2, 2 AVX-512).
inline VecIsa vec_isa_at_most(int max_isa) {
  return std::min(best_vec_isa(), static_cast<VecIsa>(std::clamp(max_isa, 0, 2)));
}

}  // namespace bnscope
