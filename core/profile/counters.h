#pragma once
// Hardware counters of one kernel of a profiled run, as a GPU profiler measures them (CUPTI's
// range profiler: dram__bytes_read.sum, dram__bytes_write.sum, dram__throughput,
// lts__t_sector_hit_rate, sm__warps_active): what the memory system did, beside the
// minimum-traffic model's bytes (traffic.h). The collection lives with the GPU backends; this is
// only the data, so the report, trace and views read it without them.

#include <cstdint>
#include <string>
#include <vector>

namespace bnscope {

struct KernelCounters {
  std::string kernel;  // the profile's phase, "kernel:<name>"
  double dram_bytes_read = 0;
  double dram_bytes_written = 0;
  double dram_gbps = 0;          // achieved DRAM bandwidth over the kernel's duration
  double dram_peak_percent = 0;  // of the device's peak DRAM bandwidth
  double l2_hit_percent = 0;
  double achieved_occupancy = 0;  // active warps over the SM's maximum, 0..1
  double dram_bytes() const { return dram_bytes_read + dram_bytes_written; }
};

// The counters of a profile: one entry per kernel, or the reason there are none ("" when none
// were asked for).
struct ProfileCounters {
  std::vector<KernelCounters> kernels;
  std::string unavailable;
  double measured_bytes() const {
    double b = 0;
    for (const KernelCounters& k : kernels) b += k.dram_bytes();
    return b;
  }
};

}  // namespace bnscope
