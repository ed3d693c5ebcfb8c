#pragma once
// The emulator's DeviceRuntime: device memory is plain heap memory (so AddressSanitizer sees
// out-of-bounds accesses of kernels), copies are memcpy, launches run to completion on the
// emulator, and there is no device clock.

#include "device_runtime.h"

namespace bnscope::gpu {

// The limits the planner plans for: those of an H100 (132 SMs), so plans match the device's.
DeviceRuntime& host_runtime();

}  // namespace bnscope::gpu
