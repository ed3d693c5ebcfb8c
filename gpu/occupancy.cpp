#include "occupancy.h"

#include <algorithm>
#include <climits>

namespace bnscope::gpu {

namespace {

constexpr int kWarp = 32;
constexpr int kRegisterUnit = 256;  // registers are given to a warp in units of 256 (sm_80, sm_90)
constexpr int kSharedUnit = 128;    // and shared memory to a CTA in units of 128 bytes

int round_up(int v, int unit) {
  return (v + unit - 1) / unit * unit;
}

}  // namespace

Occupancy occupancy(const DeviceLimits& d, const KernelFootprint& k) {
  Occupancy o;
  if (k.threads <= 0 || k.threads > d.max_threads_per_block) {
    o.limiter = std::to_string(k.threads) + " threads per block (the device allows 1 to " +
                std::to_string(d.max_threads_per_block) + ")";
    return o;
  }
  if (k.registers_per_thread > d.max_registers_per_thread) {
    o.limiter = std::to_string(k.registers_per_thread) + " registers per thread (at most " +
                std::to_string(d.max_registers_per_thread) + ")";
    return o;
  }
  const int shared = k.static_shared_bytes + k.dynamic_shared_bytes;
  if (shared > d.max_shared_per_block_optin) {
    o.limiter = std::to_string(shared) + " bytes of shared memory per block (at most " +
                std::to_string(d.max_shared_per_block_optin) + ")";
    return o;
  }
  const int warps = (k.threads + kWarp - 1) / kWarp;
  struct Limit {
    int blocks;
    const char* name;
  };
  const int regs_per_block =
      warps * round_up(std::max(k.registers_per_thread, 1) * kWarp, kRegisterUnit);
  const int shared_per_block = round_up(shared + d.reserved_shared_per_block, kSharedUnit);
  const Limit limits[] = {
      {d.max_threads_per_sm / (warps * kWarp), "threads"},
      {d.max_blocks_per_sm, "blocks"},
      {d.registers_per_sm / regs_per_block, "registers"},
      {shared > 0 || d.reserved_shared_per_block > 0 ? d.shared_per_sm / shared_per_block : INT_MAX,
       "shared memory"},
  };
  o.blocks_per_sm = INT_MAX;
  for (const Limit& l : limits)
    if (l.blocks < o.blocks_per_sm) {
      o.blocks_per_sm = l.blocks;
      o.limiter = l.name;
    }
  return o;
}

}  // namespace bnscope::gpu
