#include "counters.h"

namespace bnscope::gpu {

std::string counters_unavailable_reason(const CounterSetting& s) {
  const std::string b(s.backend);
  if (b == "cuda-emu") return "cuda-emu: an emulation on the CPU has no GPU hardware counters";
  if (b != "cuda" && b != "cudnn")
    return b + ": hardware counters are collected for the GPU backends (cuda, cudnn) only";
  if (!s.device_problem.empty()) return b + ": no usable GPU (" + s.device_problem + ")";
  if (!s.cupti_built)
    return b +
           ": this build of bnscope does not link CUPTI's range profiler (CUDA 13 "
           "extras/CUPTI); rebuild with it to collect counters";
  switch (s.cupti_status) {
    case 0:
      return {};
    case kCuptiInsufficientPrivileges:
    case kCuptiVirtualizedNoPrivileges:
      return b +
             ": ERR_NVGPUCTRPERM: the driver lets only root or processes with CAP_PERFMON "
             "read GPU performance counters (NVreg_RestrictProfilingToAdminUsers=0 lifts it)";
    case kCuptiNotSupported:
      return b + ": the device or driver does not support CUPTI's range profiler";
    default:
      return b + ": CUPTI's range profiler failed with CUptiResult " +
             std::to_string(s.cupti_status);
  }
}

}  // namespace bnscope::gpu
