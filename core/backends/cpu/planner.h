#pragma once
// Every choice of the cpu backend that changes no bit, only the time, decided from what the host
// reports: its caches (host_caches.h), the dispatched vector width and the run's thread count.
// Nothing is timed while the backend runs, so one call on one host always takes the same walks;
// what each rule was measured on: docs/measurements/cpu-kernel-notes.md. Which chunks make a sum
// (kernels.h: Geometry) is fixed by the shape alone, so results are the same on any host.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "backends/cpu/host_caches.h"
#include "ops/prepared.h"

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

// The pass structure of a problem (passes.h explains each): the ops run the one returned here and
// each pass reports itself as a phase named here, so a profile shows the passes the planner chose.
enum class PassStructure {
  Write,       // forward in inference, BatchNormWithGlobalNormalization: one write pass
  Statistics,  // forward in training: mean pass, deviation pass, write pass
  TwoPass,     // training grads: reduce pass, then write pass (grad_two_pass.cpp)
  Planes,      // channels-first training grads, plane by plane while cache-hot (grad_planes.cpp)
  Single,      // freeze-mode and global grads: sums and dx in one sweep (passes.h: single_pass)
};

// Phase names, "pass:" so the profiler and the timeline tell them from device phases.
inline constexpr const char* kPassMean = "pass:mean";          // Σx
inline constexpr const char* kPassVariance = "pass:variance";  // Σ(x-mean), Σ(x-mean)²
inline constexpr const char* kPassReduce = "pass:reduce";      // Σdy, Σdy·(x-mean)
inline constexpr const char* kPassWrite = "pass:write";        // dx or y from per-channel coefs
inline constexpr const char* kPassPlanes = "pass:planes";      // reduce + write per plane
inline constexpr const char* kPassFused = "pass:fused";        // sums and dx in one sweep

// threads: the resolved count the run uses (it decides whether planes keep every thread busy).
PassStructure pass_structure(const Host& host, const Prepared& p, int threads);
std::vector<std::string> pass_names(PassStructure s);

}  // namespace bnscope::cpu
