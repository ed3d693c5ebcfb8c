#pragma once
// Hardware counters for a profile (profile --counters): why they can or cannot be collected for
// a backend here. They come from CUPTI's range profiler (CUDA 13) on a device whose driver lets
// this process read them (root or CAP_PERFMON, else ERR_NVGPUCTRPERM); an emulation and the CPU
// backends have none. Plain C++: the reasons are tested without a GPU.

#include <string>
#include <string_view>

#include "profile/profiler.h"

namespace bnscope::gpu {

struct CounterSetting {
  std::string_view backend;
  std::string device_problem;  // device_status().problem: empty when a device is usable
  bool cupti_built = false;    // this build links CUPTI's range profiler
  int cupti_status = 0;        // CUptiResult of enabling the range profiler; 0: success
};

// "" when counters can be collected, else one line naming why not.
std::string counters_unavailable_reason(const CounterSetting& s);

// CUptiResult codes that say why collection is refused.
constexpr int kCuptiInsufficientPrivileges = 35;   // CUPTI_ERROR_INSUFFICIENT_PRIVILEGES
constexpr int kCuptiVirtualizedNoPrivileges = 40;  // ..._VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES
constexpr int kCuptiNotSupported = 27;             // CUPTI_ERROR_NOT_SUPPORTED

}  // namespace bnscope::gpu
