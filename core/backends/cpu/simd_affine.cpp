// Highway bodies of simd.h's write sweeps (rows_affine, plane_affine): each output element from
// per-channel coefficients, the training dx or the forward y. Compiled once per x86-64 target
// and picked at run time like simd_kernels.cpp, and built like it with -ffp-contract=off
// (deps.cmake): the outputs apply simd.h's affine() operation for operation, never fused.
// Non-temporal stores (Stream) for every vector whose address is vector aligned, so dx costs no
// read-for-ownership.

#include <cstdint>
#include <type_traits>

#include "backends/cpu/simd.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/cpu/simd_affine.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "backends/cpu/simd_vectors-inl.h"

HWY_BEFORE_NAMESPACE();
namespace bnscope::cpu::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Vector form of simd.h's affine, operation for operation.
template <bool Normalize>
HWY_INLINE VF affine_vec(VF a, VF b, VF p, VF q, VF m, VF r) {
  if constexpr (Normalize) {
    (void)b;
    (void)p;
    return hn::Add(hn::Mul(hn::Sub(a, m), q), r);
  } else {
    return hn::Mul(p, hn::Add(hn::Sub(b, r), hn::Mul(hn::Sub(a, m), q)));
  }
}

template <bool Normalize, bool CheckNaN, class T>
void RowsAffineT(const Sweep& s, std::int64_t n_groups, std::int64_t L, std::int64_t stride,
                 const float* p, const float* q, const float* m, const float* r) {
  const DF d;
  const std::int64_t N = static_cast<std::int64_t>(hn::Lanes(d));
  const T* a = static_cast<const T*>(s.a);
  const T* b = static_cast<const T*>(s.b);
  T* out = static_cast<T*>(s.out);
  const bool nt = s.nt;  // a local: the stores could alias s, so s.nt would be re-read
  const bool pf = s.prefetch;
  const std::int64_t Lv = L / N * N;
  for (std::int64_t k = 0; k < n_groups; ++k) {
    const T* pa = a + k * stride;
    const T* pb = b + k * stride;
    T* po = out + k * stride;
    const auto vec = [&](std::int64_t at) {  // the output vector at lane `at`
      const VF av = load_vec(d, pa + at);
      const VF bv = Normalize ? av : load_vec(d, pb + at);
      return affine_vec<Normalize>(av, bv, hn::LoadU(d, p + at), hn::LoadU(d, q + at),
                                   hn::LoadU(d, m + at), hn::LoadU(d, r + at));
    };
    std::int64_t j = 0;
    if constexpr (kPairs<T>) {
      for (; j + 2 * N <= Lv; j += 2 * N) {
        prefetch_if(pf, pa + j, Normalize ? pa + j : pb + j);
        store_pair<CheckNaN>(vec(j), vec(j + N), po + j, nt);
      }
    }
    for (; j < Lv; j += N) {
      prefetch_if(pf, pa + j, Normalize ? pa + j : pb + j);
      store_vec<CheckNaN>(vec(j), po + j, nt);
    }
    for (; j < L; ++j)
      po[j] = store<T>(
          affine<Normalize>(load(pa[j]), Normalize ? 0.0f : load(pb[j]), p[j], q[j], m[j], r[j]));
  }
}

template <bool Normalize, bool CheckNaN, class T>
void PlaneAffineRunT(const Sweep& s, std::int64_t n, float p, float q, float m, float r) {
  const DF d;
  const std::int64_t N = static_cast<std::int64_t>(hn::Lanes(d));
  const T* a = static_cast<const T*>(s.a);
  const T* b = static_cast<const T*>(s.b);
  T* out = static_cast<T*>(s.out);
  const bool nt = s.nt;  // a local: the stores could alias s, so s.nt would be re-read
  const VF pv = hn::Set(d, p), qv = hn::Set(d, q), mv = hn::Set(d, m), rv = hn::Set(d, r);
  const auto one = [&](std::int64_t i) {
    out[i] = store<T>(affine<Normalize>(load(a[i]), Normalize ? 0.0f : load(b[i]), p, q, m, r));
  };
  std::int64_t i = 0;
  // Scalar head up to the output's vector alignment (of a pair of vectors where the loop stores
  // pairs), so the stores can be non-temporal.
  const std::size_t vbytes = static_cast<std::size_t>(kPairs<T> ? 2 * N : N) * sizeof(T);
  while (nt && i < n && reinterpret_cast<std::uintptr_t>(out + i) % vbytes != 0) one(i++);
  const auto vec = [&](std::int64_t k) {  // the output vector at element k
    const VF av = load_vec(d, a + k);
    const VF bv = Normalize ? av : load_vec(d, b + k);
    return affine_vec<Normalize>(av, bv, pv, qv, mv, rv);
  };
  if constexpr (kPairs<T>) {
    for (; i + 2 * N <= n; i += 2 * N) {
      prefetch_ahead(a + i, Normalize ? a + i : b + i);
      store_pair<CheckNaN>(vec(i), vec(i + N), out + i, nt);
    }
  }
  for (; i + N <= n; i += N) {
    prefetch_ahead(a + i, Normalize ? a + i : b + i);
    store_vec<CheckNaN>(vec(i), out + i, nt);
  }
  for (; i < n; ++i) one(i);
}

// Calls f with (Normalize, CheckNaN) as compile-time constants: the grad form without NaN
// selects where the sweep is nan_free (simd.h), every other sweep with them.
template <class F>
HWY_INLINE void by_form(const Sweep& s, F&& f) {
  if (s.normalize)
    f(std::true_type(), std::true_type());
  else if (s.nan_free)
    f(std::false_type(), std::false_type());
  else
    f(std::false_type(), std::true_type());
}

template <class T>
void PlaneAffineT(const Sweep& s, const Runs& runs, float p, float q, float m, float r) {
  by_form(s, [&](auto normalize, auto check) {
    for_runs<T>(s, runs, [&](const Sweep& w, std::int64_t n) {
      PlaneAffineRunT<decltype(normalize)::value, decltype(check)::value, T>(w, n, p, q, m, r);
    });
  });
}

void RowsAffine(const Sweep& s, std::int64_t n_groups, std::int64_t L, std::int64_t stride,
                const float* p, const float* q, const float* m, const float* r) {
  by_elem(s.elem, [&](auto tag) {
    using T = typename decltype(tag)::type;
    by_form(s, [&](auto normalize, auto check) {
      RowsAffineT<decltype(normalize)::value, decltype(check)::value, T>(s, n_groups, L, stride, p,
                                                                         q, m, r);
    });
  });
}
void PlaneAffine(const Sweep& s, const Runs& runs, float p, float q, float m, float r) {
  by_elem(s.elem,
          [&](auto tag) { PlaneAffineT<typename decltype(tag)::type>(s, runs, p, q, m, r); });
}

}  // namespace HWY_NAMESPACE
}  // namespace bnscope::cpu::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace bnscope::cpu::simd {

HWY_EXPORT(RowsAffine);
HWY_EXPORT(PlaneAffine);

void rows_affine(const Sweep& s, std::int64_t n_groups, std::int64_t L, std::int64_t stride,
                 const float* p, const float* q, const float* m, const float* r) {
  HWY_DYNAMIC_DISPATCH(RowsAffine)(s, n_groups, L, stride, p, q, m, r);
}
void plane_affine(const Sweep& s, const Runs& runs, float p, float q, float m, float r) {
  HWY_DYNAMIC_DISPATCH(PlaneAffine)(s, runs, p, q, m, r);
}

}  // namespace bnscope::cpu::simd
#endif
