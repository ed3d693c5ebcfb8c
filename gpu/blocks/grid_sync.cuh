#pragma once
// The grid-wide barrier of a cooperative launch (launch_cooperative_kernel): every thread of
// every block arrives before any continues, and global memory written before it is visible after
// it. On a device, cooperative groups' grid sync; in the emulator, its resident-fiber barrier.

#include "target.cuh"
#ifndef BNSCOPE_EMULATED
#include <cooperative_groups.h>
#endif

namespace bnscope::gpu::BNSCOPE_DEVICE_NS {

__device__ __forceinline__ void grid_sync() {
#ifdef BNSCOPE_EMULATED
  emu::grid_sync();
#else
  cooperative_groups::this_grid().sync();
#endif
}

}  // namespace bnscope::gpu::BNSCOPE_DEVICE_NS
