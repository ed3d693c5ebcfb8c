#include "device_query.h"

#include <cuda_runtime_api.h>

namespace bnscope::gpu {

namespace {

DeviceStatus query() {
  DeviceStatus s;
  int count = 0;
  if (cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess || count == 0) {
    s.problem = std::string("no CUDA device: ") +
                (e != cudaSuccess ? cudaGetErrorString(e) : "cudaGetDeviceCount found none");
    int driver = 0;
    if (e == cudaErrorInsufficientDriver && cudaDriverGetVersion(&driver) == cudaSuccess &&
        driver == 0)
      s.problem += " (no NVIDIA driver is loaded)";
    cudaGetLastError();
    return s;
  }
  DeviceInfo& d = s.info;
  cudaDriverGetVersion(&d.driver_version);
  cudaRuntimeGetVersion(&d.runtime_version);
  cudaDeviceProp prop{};
  if (cudaError_t e = cudaGetDeviceProperties(&prop, 0); e != cudaSuccess) {
    s.problem = std::string("no CUDA device: ") + cudaGetErrorString(e);
    cudaGetLastError();
    return s;
  }
  d.name = prop.name;
  d.cc_major = prop.major;
  d.cc_minor = prop.minor;
  d.sm_count = prop.multiProcessorCount;
  d.total_memory_bytes = static_cast<std::int64_t>(prop.totalGlobalMem);
  d.l2_cache_bytes = prop.l2CacheSize;
  d.max_threads_per_block = prop.maxThreadsPerBlock;
  d.max_shared_per_block = static_cast<int>(prop.sharedMemPerBlock);
  d.max_grid_y = prop.maxGridSize[1];
  d.max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
  d.max_blocks_per_sm = prop.maxBlocksPerMultiProcessor;
  d.registers_per_sm = prop.regsPerMultiprocessor;
  d.shared_per_sm = static_cast<int>(prop.sharedMemPerMultiprocessor);
  d.shared_per_block_optin = static_cast<int>(prop.sharedMemPerBlockOptin);
  d.reserved_shared_per_block = static_cast<int>(prop.reservedSharedMemPerBlock);
  d.cooperative_launch = prop.cooperativeLaunch != 0;
  // CUDA 13 dropped the clock and bus fields from cudaDeviceProp; the attributes remain.
  cudaDeviceGetAttribute(&d.memory_clock_khz, cudaDevAttrMemoryClockRate, 0);
  cudaDeviceGetAttribute(&d.bus_width_bits, cudaDevAttrGlobalMemoryBusWidth, 0);
  cudaGetLastError();
  s.problem = device_problem(d.driver_version, d.runtime_version, d.cc_major, d.cc_minor);
  return s;
}

}  // namespace

const DeviceStatus& device_status() {
  static const DeviceStatus s = query();
  return s;
}

std::string usable_device_summary() {
  const DeviceStatus& s = device_status();
  return s.problem.empty() ? s.info.summary() : std::string();
}

}  // namespace bnscope::gpu
