#pragma once
// The CUDA implementation of DeviceRuntime: cudaMalloc, async copies on streams, CUDA events,
// NVTX ranges, and the kernels built by nvcc.

#include "device_runtime.h"

namespace bnscope::gpu {

DeviceRuntime& cuda_runtime();

}  // namespace bnscope::gpu
