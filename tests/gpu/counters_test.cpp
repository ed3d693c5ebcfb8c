// Why profile --counters collects nothing, for each setting where it cannot: an emulation, a CPU
// backend, no usable GPU, no CUPTI in the build, and the driver's refusals (ERR_NVGPUCTRPERM).

#include "counters.h"

#include <gtest/gtest.h>

namespace bnscope::gpu {
namespace {

CounterSetting setting(std::string_view backend, std::string problem = "", bool cupti = true,
                       int status = 0) {
  CounterSetting s;
  s.backend = backend;
  s.device_problem = std::move(problem);
  s.cupti_built = cupti;
  s.cupti_status = status;
  return s;
}

bool has(const std::string& s, const char* part) {
  return s.find(part) != std::string::npos;
}

TEST(Counters, AnEmulationAndTheCpuBackendsHaveNone) {
  EXPECT_TRUE(has(counters_unavailable_reason(setting("cuda-emu")), "emulation"));
  const std::string cpu = counters_unavailable_reason(setting("cpu"));
  EXPECT_TRUE(has(cpu, "cpu: ")) << cpu;
  EXPECT_TRUE(has(cpu, "GPU backends")) << cpu;
}

TEST(Counters, NoUsableGpuNamesTheDevicesProblem) {
  const std::string r =
      counters_unavailable_reason(setting("cuda", "no CUDA device: no CUDA-capable device"));
  EXPECT_TRUE(has(r, "no usable GPU (no CUDA device: no CUDA-capable device)")) << r;
  // The device's problem comes before the build's: it is the one to fix first.
  EXPECT_TRUE(has(counters_unavailable_reason(setting("cudnn", "driver too old", false)),
                  "driver too old"));
}

TEST(Counters, ABuildWithoutCuptiSaysSo) {
  EXPECT_TRUE(has(counters_unavailable_reason(setting("cuda", "", false)), "CUPTI"));
}

TEST(Counters, TheDriversRefusalIsNamedAsNsightNamesIt) {
  for (int status : {kCuptiInsufficientPrivileges, kCuptiVirtualizedNoPrivileges}) {
    const std::string r = counters_unavailable_reason(setting("cuda", "", true, status));
    EXPECT_TRUE(has(r, "ERR_NVGPUCTRPERM")) << r;
    EXPECT_TRUE(has(r, "CAP_PERFMON")) << r;
  }
  EXPECT_TRUE(has(counters_unavailable_reason(setting("cuda", "", true, kCuptiNotSupported)),
                  "does not support"));
  EXPECT_TRUE(has(counters_unavailable_reason(setting("cuda", "", true, 999)), "CUptiResult 999"));
  EXPECT_EQ(counters_unavailable_reason(setting("cuda", "", true, 0)), "");
}

}  // namespace
}  // namespace bnscope::gpu
