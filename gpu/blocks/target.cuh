#pragma once
// The one switch between the two targets of the device sources: nvcc for a GPU, or host C++ for
// the emulator (BNSCOPE_EMULATED, gpu/emulator/). Every device source includes this first.
// Each target's kernels and launchers live in their own namespace, so both sets link into one
// program.

#ifdef BNSCOPE_EMULATED
#include "../emulator/device.h"
#define BNSCOPE_DEVICE_NS emulated
#else
#include <cuda_runtime.h>
#define BNSCOPE_DEVICE_NS cuda_device
#endif
