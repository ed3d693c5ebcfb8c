#pragma once
// How many CTAs of a kernel are resident on one SM at once, from its threads, registers and
// shared memory against the SM's limits: the arithmetic of
// cudaOccupancyMaxActiveBlocksPerMultiprocessor, and so the largest grid a cooperative launch
// accepts (blocks per SM times SMs). Plain C++: the planner sizes single-pass grids with it, and
// the emulator refuses a cooperative grid above it as cudaLaunchCooperativeKernel does
// (cudaErrorCooperativeLaunchTooLarge).

#include <cstdint>
#include <string>

#include "planner.h"

namespace bnscope::gpu {

// What one CTA of a kernel asks of an SM.
struct KernelFootprint {
  int threads = 256;
  int registers_per_thread = 32;
  int static_shared_bytes = 0;
  int dynamic_shared_bytes = 0;
};

struct Occupancy {
  int blocks_per_sm = 0;
  std::string limiter;  // "threads", "blocks", "registers", "shared memory", or why none fit
  std::int64_t co_resident(const DeviceLimits& d) const {
    return static_cast<std::int64_t>(blocks_per_sm) * d.sm_count;
  }
};

Occupancy occupancy(const DeviceLimits& d, const KernelFootprint& k);

}  // namespace bnscope::gpu
