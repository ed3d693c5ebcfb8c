#pragma once
// The CUDA side of device_info.h: which device is there and whether the backends can use it.

#include <string>

#include "device_info.h"

namespace bnscope::gpu {

struct DeviceStatus {
  std::string problem;  // empty when usable: "no CUDA device: ...", "CUDA driver too old: ..."
  DeviceInfo info;      // filled when a device was found
};

// Queried once per process (device 0) and cached; never throws.
const DeviceStatus& device_status();

// The usable device's summary (DeviceInfo::summary) for reports; empty when there is none:
// what the GPU backends answer to Backend::device.
std::string usable_device_summary();

}  // namespace bnscope::gpu
