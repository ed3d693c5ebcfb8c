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

}  // namespace bnscope::gpu
