#pragma once
// The GPU roofline: a device-to-device copy of the bytes a run moves, timed in the same process
// and run as the kernels (as the CPU backends' copy probe is), so "fraction of copy bandwidth"
// compares two figures of one device at one moment. On a runtime with a device clock it is
// timed with device events; the emulator's copy is a host memcpy timed on the host clock, and
// the result says it is emulated.

#include <cstddef>

#include "device_runtime.h"
#include "profile/profiler.h"

namespace bnscope::gpu {

// Copies `bytes` (at least one) from one device buffer to another: one warm-up, then the best
// of `reps`, in GB/s counting read plus write (2*bytes per copy).
DeviceCopy measure_device_copy(DeviceRuntime& rt, std::size_t bytes, int reps = 5);

}  // namespace bnscope::gpu
