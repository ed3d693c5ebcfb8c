#pragma once
// The one launch helper every kernel launch goes through: kernel<<<grid, block, shared, s>>>
// with the launch's error checked on a device, the emulator's grid run on the host.

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "../blocks/target.cuh"
#include "../launch.h"
#include "../occupancy.h"
#include "tensor/error.h"
#ifndef BNSCOPE_EMULATED
#include "../cuda_check.h"
#endif

namespace bnscope::gpu::BNSCOPE_DEVICE_NS {

template <class... P, class... A>
void launch_kernel(const char* name, void (*kernel)(P...), dim3 grid, dim3 block,
                   std::size_t shared, Stream s, A&&... args) {
  static_assert(sizeof...(P) == sizeof...(A), "kernel launched with the wrong argument count");
#ifdef BNSCOPE_EMULATED
  (void)s;  // the emulator runs each launch to completion, in stream order by construction
  try {
    emu::launch(name, kernel, grid, block, shared, std::forward<A>(args)...);
  } catch (const emu::Fault& f) {
    throw Error(ErrorCode::Internal, std::string("cuda-emu: ") + f.what());
  }
#else
  std::tuple<std::decay_t<P>...> params(static_cast<std::decay_t<P> >(args)...);
  std::apply(
      [&](auto&... p) {
        void* ptrs[] = {static_cast<void*>(&p)...};
        check_cuda(
            cudaLaunchKernel(reinterpret_cast<const void*>(kernel), grid, block, ptrs, shared, s),
            name);
      },
      params);
#endif
}

// A cooperative launch (cudaLaunchCooperativeKernel): all blocks co-resident, so the kernel may
// call grid_sync(). footprint is what the planner sized the grid with; the emulator checks the
// grid against it, the device against the kernel's real registers and shared memory (both
// refuse a grid that cannot be co-resident). Capturable into a CUDA graph: no host sync.
template <class... P, class... A>
void launch_cooperative_kernel(const char* name, void (*kernel)(P...), dim3 grid, dim3 block,
                               std::size_t shared, const KernelFootprint& footprint, Stream s,
                               A&&... args) {
  static_assert(sizeof...(P) == sizeof...(A), "kernel launched with the wrong argument count");
#ifdef BNSCOPE_EMULATED
  (void)s;
  try {
    emu::launch_cooperative(name, kernel, grid, block, shared, footprint, std::forward<A>(args)...);
  } catch (const emu::Fault& f) {
    throw Error(ErrorCode::Internal, std::string("cuda-emu: ") + f.what());
  }
#else
  (void)footprint;
  // Past 48 KiB a kernel's dynamic shared memory needs the opt-in (a host call, not a stream
  // operation, so stream capture stays valid).
  if (shared > 48 * 1024)
    check_cuda(
        cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel),
                             cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)),
        name);
  std::tuple<std::decay_t<P>...> params(static_cast<std::decay_t<P> >(args)...);
  std::apply(
      [&](auto&... p) {
        void* ptrs[] = {static_cast<void*>(&p)...};
        check_cuda(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(kernel), grid, block,
                                               ptrs, shared, s),
                   name);
      },
      params);
#endif
}

}  // namespace bnscope::gpu::BNSCOPE_DEVICE_NS
