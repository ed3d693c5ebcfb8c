#pragma once
// What the cuda and cudnn backends report about the device, and the arithmetic on it. This file
// and device_info.cpp are plain C++ (tested without a GPU); device_query.cpp fills DeviceInfo
// from the CUDA runtime.

#include <cstddef>
#include <cstdint>
#include <string>

#include "planner.h"

namespace bnscope::gpu {

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int memory_clock_khz = 0;  // cudaDevAttrMemoryClockRate
  int bus_width_bits = 0;    // cudaDevAttrGlobalMemoryBusWidth
  std::int64_t total_memory_bytes = 0;
  int l2_cache_bytes = 0;
  int max_threads_per_block = 1024;
  int max_shared_per_block = 48 * 1024;
  int max_grid_y = 65535;
  // Per-SM resources (cudaDeviceProp), 0 where unknown: the planner's co-resident grids.
  int max_threads_per_sm = 0, max_blocks_per_sm = 0, registers_per_sm = 0;
  int shared_per_sm = 0, shared_per_block_optin = 0, reserved_shared_per_block = -1;
  bool cooperative_launch = true;
  int driver_version = 0;   // cudaDriverGetVersion: 1000*major + 10*minor
  int runtime_version = 0;  // cudaRuntimeGetVersion

  // Peak DRAM bandwidth: two transfers per memory clock over the bus (DDR/HBM).
  double peak_bandwidth_bytes_per_s() const;
  // "NVIDIA H100 80GB HBM3, sm_90, 132 SMs, 79.1 GiB, 3.35 TB/s peak".
  std::string summary() const;
  DeviceLimits limits() const;
};

double peak_bandwidth_bytes_per_s(int memory_clock_khz, int bus_width_bits);
// 13000 -> "13.0", 12040 -> "12.4".
std::string cuda_version_text(int version);
// cudnnGetVersion's number as cuDNN writes it: 91900 -> "9.19.0" (cuDNN 9 counts minor versions
// by 100), 8907 -> "8.9.7" (cuDNN 8 by 100 within 1000s).
std::string cudnn_version_text(std::size_t version);
// Empty when a device with these versions can run the kernels built for sm_80 and sm_90;
// otherwise the reason, e.g. "CUDA driver too old: it supports CUDA 12.4, the runtime needs 13.0".
std::string device_problem(int driver_version, int runtime_version, int cc_major, int cc_minor);

}  // namespace bnscope::gpu
