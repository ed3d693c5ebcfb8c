#include "device_info.h"

#include <cstdio>

namespace bnscope::gpu {

double peak_bandwidth_bytes_per_s(int memory_clock_khz, int bus_width_bits) {
  if (memory_clock_khz <= 0 || bus_width_bits <= 0) return 0;
  return 2.0 * memory_clock_khz * 1000.0 * (bus_width_bits / 8.0);
}

std::string cuda_version_text(int version) {
  if (version <= 0) return "none";
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

std::string cudnn_version_text(std::size_t version) {
  if (version == 0) return "none";
  const std::size_t major_unit = version >= 90000 ? 10000 : 1000;
  return std::to_string(version / major_unit) + "." + std::to_string((version % major_unit) / 100) +
         "." + std::to_string(version % 100);
}

std::string device_problem(int driver_version, int runtime_version, int cc_major, int cc_minor) {
  if (driver_version == 0) return "no CUDA driver installed";
  // The runtime's major version needs a driver of at least that major version (minor version
  // compatibility covers the rest).
  if (driver_version / 1000 < runtime_version / 1000)
    return "CUDA driver too old: it supports CUDA " + cuda_version_text(driver_version) +
           ", the runtime needs " + cuda_version_text(runtime_version);
  if (cc_major < 8)
    return "compute capability " + std::to_string(cc_major) + "." + std::to_string(cc_minor) +
           " is older than sm_80, the oldest architecture bnscope's kernels are built for";
  return {};
}

double DeviceInfo::peak_bandwidth_bytes_per_s() const {
  return gpu::peak_bandwidth_bytes_per_s(memory_clock_khz, bus_width_bits);
}

std::string DeviceInfo::summary() const {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s, sm_%d%d, %d SMs, %.1f GiB, %.2f TB/s peak", name.c_str(),
                cc_major, cc_minor, sm_count,
                static_cast<double>(total_memory_bytes) / (1024.0 * 1024.0 * 1024.0),
                peak_bandwidth_bytes_per_s() / 1e12);
  return buf;
}

DeviceLimits DeviceInfo::limits() const {
  DeviceLimits d;
  if (sm_count > 0) d.sm_count = sm_count;
  if (max_threads_per_block > 0) d.max_threads_per_block = max_threads_per_block;
  if (max_shared_per_block > 0) d.max_shared_per_block = max_shared_per_block;
  if (max_grid_y > 0) d.max_grid_y = max_grid_y;
  if (max_threads_per_sm > 0) d.max_threads_per_sm = max_threads_per_sm;
  if (max_blocks_per_sm > 0) d.max_blocks_per_sm = max_blocks_per_sm;
  if (registers_per_sm > 0) d.registers_per_sm = registers_per_sm;
  if (shared_per_sm > 0) d.shared_per_sm = shared_per_sm;
  if (shared_per_block_optin > 0) d.max_shared_per_block_optin = shared_per_block_optin;
  if (reserved_shared_per_block >= 0) d.reserved_shared_per_block = reserved_shared_per_block;
  if (l2_cache_bytes > 0) d.l2_bytes = l2_cache_bytes;
  d.cooperative_launch = cooperative_launch;
  return d;
}

}  // namespace bnscope::gpu
