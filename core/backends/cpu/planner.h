#pragma once
// Every choice of the cpu backend that changes no bit, only the time, decided here from what the
// host reports: its caches (host_caches.h: sysfs, else cpuid), the width of the vectors the
// kernels dispatch to, and the run's thread count. Nothing is timed while the backend runs, so
// one call on one host always takes the same walks and two profiles of it agree. What each rule
// was measured on: docs/measurements/cpu-kernel-notes.md; a host whose figures differ gets its
// rule from those figures, never from a trial. Which chunks make a sum (kernels.h: Geometry) is
// fixed by the shape alone and never decided here, so results are bitwise the same on any host.

#include <cstddef>
#include <cstdint>

#include "backends/cpu/host_caches.h"

namespace bnscope::cpu {

struct Geometry;

// What the planner knows of a host. The backend plans with this_host(); tests pass other
// hosts' figures to see what those would choose (and check that every choice has the same bits).
struct Host {
  HostCaches caches;
  std::int64_t vector_bytes = 64;  // of the target the kernels dispatch to (simd.h)
};
Host this_host();

// How a rows pass (channels-last) walks its rows; simd.h: Sweep and rows_sweep.
struct RowsWalk {
  std::int64_t tile = 0;  // rows per row tile, 0: one row at a time through the lane arrays
  bool pairs = true;      // reductions walked a row at a time: two rows per trip
  bool prefetch = true;   // the software prefetch 2 KiB ahead
};

// x and dy of a pass over rows of `lanes` lanes, `bytes` of them together: its walk. `writes`:
// the single sweep (sums and dx), else the reduce pass of the training grads or statistics.
RowsWalk rows_walk(const Host& host, std::int64_t lanes, std::size_t element_size,
                   std::size_t bytes, bool writes);
// The training grads' and the forward ops' write pass over rows: whether it prefetches.
bool write_prefetch(const Host& host, std::size_t element_size);

// Whether the grads stream dx past the caches (non-temporal stores) for a call whose x, dy and dx
// are tensor_bytes together; the forward ops' y likewise (`grad` false, x and y).
bool stream_output(const Host& host, std::size_t tensor_bytes, std::size_t element_size,
                   int threads, bool grad);

// Channels-first training grads: whether a channel's plane (or channel block) stays in a core's
// caches between its reduction and its write, with enough of them to keep every thread busy.
bool planes_fit(const Host& host, const Geometry& g, std::size_t element_size, int threads);

}  // namespace bnscope::cpu
