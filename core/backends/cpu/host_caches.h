#pragma once
// The cache sizes of the host the cpu backend runs on, read once at first use: Linux sysfs, else
// cpuid's deterministic cache parameters (leaf 4 on Intel, 0x8000001D on AMD), else defaults.
// Only the planner's choices (planner.h) depend on them, never the chunking that fixes the order
// of additions, so results stay bitwise identical from host to host.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace bnscope::cpu {

struct HostCaches {
  std::size_t l1d = 0, l2 = 0, l3 = 0;  // bytes of one instance; 0 when unknown or absent
  int l2_sharing = 1, l3_sharing = 1;   // logical CPUs sharing one instance
  std::string source;                   // "sysfs", "cpuid" or "default"

  // Bytes a core can keep resident between two sweeps over the same data: its share of the L2
  // less an eighth for the lines in flight (streamed output, prefetches, the lane arrays): half
  // the L2 sent blocks that ran faster in one sweep to two (docs/measurements/cpu-kernel-notes.md).
  std::size_t reuse_bytes() const;
  // Bytes a core can keep between a reduction and a rewrite of the same data right after it:
  // reuse_bytes() plus a quarter of its L3 share, which catches what the L2 drops. A quarter:
  // the L3 also holds the other cores' and, in a VM, other guests' working sets.
  std::size_t resident_bytes() const;
  // Bytes of the last-level cache (L3, else L2): a run's threads share it.
  std::size_t llc_bytes() const;
  // The part of the last-level cache that `threads` of the CPUs sharing it can count on: all of
  // it where they are all its sharers, else their share. In a VM sysfs counts the guest's CPUs
  // only, so a 2-vCPU guest on an 8-core CCD reads the whole L3 as its own.
  std::size_t llc_share_bytes(int threads) const;
};

// A sysfs cache size ("32K", "512K", "32768K", "2M", "1024"): bytes, or nullopt if malformed.
std::optional<std::size_t> parse_cache_size(std::string_view text);

// How many CPUs a sysfs cpu list names ("0-1", "0,2,4-7", "3"); 0 if malformed.
int count_cpu_list(std::string_view text);

// The data and unified caches described under dir (a sysfs cpuN/cache folder); fields stay 0
// when the folder or a file is missing.
HostCaches read_sysfs_caches(const std::string& dir);

// From cpuid's deterministic cache parameters (x86 only; fields 0 elsewhere).
HostCaches read_cpuid_caches();

// This host's caches: sysfs when it names an L2, else cpuid, else defaults (32 KiB L1d,
// 256 KiB L2, no L3: the smallest of current x86-64 cores, so nothing assumes a cache that may
// not be there). Tests plan with other hosts' caches through planner.h's Host instead.
const HostCaches& host_caches();

// One line for reports and benchmark headers: "L1d 32 KiB, L2 512 KiB, L3 32 MiB (sysfs)".
std::string describe(const HostCaches& c);

}  // namespace bnscope::cpu
