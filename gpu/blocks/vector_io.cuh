#pragma once
// 16-byte loads and stores of T (one ld.global.v4 / st.global.v4 on a device): 4 floats or 8
// halves a request instead of one, for the streaming kernels. The address must be 16-byte
// aligned; both runtimes' allocations are (cudaMalloc: 256 bytes, the emulator's malloc: 16).

#include <cstring>

#include "target.cuh"

namespace bnscope::gpu::BNSCOPE_DEVICE_NS {

template <class T>
struct alignas(16) Vec16 {
  static constexpr int kN = 16 / static_cast<int>(sizeof(T));
  T v[kN];
};

template <class T>
__device__ __forceinline__ Vec16<T> load16(const T* p) {
  Vec16<T> r;
#ifdef BNSCOPE_EMULATED
  std::memcpy(r.v, p, 16);
#else
  *reinterpret_cast<uint4*>(r.v) = *reinterpret_cast<const uint4*>(p);
#endif
  return r;
}

template <class T>
__device__ __forceinline__ void store16(T* p, const Vec16<T>& r) {
#ifdef BNSCOPE_EMULATED
  std::memcpy(p, r.v, 16);
#else
  *reinterpret_cast<uint4*>(p) = *reinterpret_cast<const uint4*>(r.v);
#endif
}

}  // namespace bnscope::gpu::BNSCOPE_DEVICE_NS
