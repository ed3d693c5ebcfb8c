#pragma once
// How the grads store dx: through the caches, or streamed past them with non-temporal stores
// (no read-for-ownership, which would be a 4th or 6th tensor pass, and no eviction of x and dy).
//
// Streamed where the call's tensors (x, dy, dx) together exceed half of this host's last-level
// cache: a cached dx could not stay anyway. Cached where they fit in half of the part of it the
// run's threads can count on (HostCaches::llc_share_bytes): dx stays where the next reader
// finds it. On the Zen 4 EPYC (2 threads, all of the 32 MiB L3 theirs by sysfs) cached stores
// ran calls of 2.4-4.8 MB of tensors in 0.54-0.78x the time of streamed ones, and streamed ones
// calls of 38.5 MB in 0.39-0.56x the time of cached ones (float32 ResNet-50 layers at N = 4 and
// 8, docs/performance-zen4-avx512.md). Between the two bounds sysfs cannot tell what stays:
// a 16-vCPU guest on a Xeon reads a 300 MiB L3 as its own, and 2 threads there ran
// 32x28x28x512 channels-last float32 (154 MB, cached) at half the speed per byte of the 308 MB
// layers (streamed) and of 32x7x7x2048 (38.5 MB, cached). There whole calls take both in turn
// and the process keeps the faster (store_walks).
//
// Neither changes a bit of dx, only where its lines go.

#include <cstddef>
#include <cstdint>

#include "backends/cpu/host_caches.h"
#include "backends/cpu/walk_trial.h"

namespace bnscope::cpu {

enum class Stores { Cached, Streamed, Measured };

// tensor_bytes: x, dy and dx together (for the forward ops, x and y). Measured, whatever the
// size, where BNSCOPE_STORES forces a way.
Stores dx_stores(const HostCaches& caches, std::size_t tensor_bytes, int threads);

// The two ways of the grads whose stores are Measured, decided per call size, channel count,
// element type and mode (training grads, whose reduce pass finds what a cached dx left in the
// caches, apart from the single sweeps): "streamed" first, "cached" (BNSCOPE_STORES names
// either, and forces it for every call between the bounds).
Walks& store_walks(bool training);
WalkKey store_key(std::size_t tensor_bytes, std::int64_t channels, simd::Elem elem);

// Runs call(streamed) once with the stores `stores` says; where it says Measured, with the
// decided way, or as a trial of whole calls (each way twice in a row, the second timed, as a
// cached dx changes what the next call finds in the caches). While that trial is undecided the
// trials inside the calls wait (TrialPause): their alternation would time into this one's.
template <class F>
void with_dx_stores(Stores stores, const WalkKey& key, bool training, F&& call) {
  if (stores != Stores::Measured) return call(stores == Stores::Streamed);
  PassTrial trial(key, true, store_walks(training), true);
  const TrialPause pause(!trial.known());
  trial.run(call);
}

}  // namespace bnscope::cpu
