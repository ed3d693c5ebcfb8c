#pragma once
// The GPU side of the app's About: the CUDA runtime's and cuDNN's versions and the device, one
// line each, or why there is none ("not built: ...", "no CUDA device: ...").

#include <string>

namespace bnscope::app {

struct GpuVersions {
  std::string cuda_runtime;  // "13.0 (the driver runs CUDA 13.0)"
  std::string cudnn;         // "9.19.0"
  std::string device;        // DeviceInfo::summary, or why none can be used
};

// Where the GPU part is built this starts the CUDA runtime (a second or so on first use): a
// window asks off its UI thread.
GpuVersions gpu_versions();

}  // namespace bnscope::app
