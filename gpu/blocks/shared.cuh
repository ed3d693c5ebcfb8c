#pragma once
// Shared memory declared so the emulator can check it: dynamic_shared<T>() is the launch's
// extern __shared__ buffer as T[], and `__shared__ SharedArray<T, N> a;` a static array. On a
// device both are plain (T* and T[N]); in the emulator they are checked proxies (bounds, races).

#include "target.cuh"

namespace bnscope::gpu::BNSCOPE_DEVICE_NS {

#ifdef BNSCOPE_EMULATED
using emu::dynamic_shared;
using emu::SharedArray;
#else
template <class T, unsigned N>
using SharedArray = T[N];

template <class T>
__device__ __forceinline__ T* dynamic_shared() {
  extern __shared__ __align__(16) unsigned char bnscope_dynamic_shared[];
  return reinterpret_cast<T*>(bnscope_dynamic_shared);
}
#endif

}  // namespace bnscope::gpu::BNSCOPE_DEVICE_NS
