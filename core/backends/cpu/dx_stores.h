#pragma once
// How the grads store dx: through the caches, or streamed past them with non-temporal stores
// (no read-for-ownership, which would be a 4th or 6th tensor pass, and no eviction of x and dy).
//
// Streamed where the call's tensors (x, dy, dx) together outgrow this host's last-level cache: a
// cached dx could not stay. Cached where they fit in half of the part of it the run's threads
// can count on (HostCaches::llc_share_bytes): dx stays where the next reader finds it. Between
// the two, whole calls take both ways in turn and the process keeps the faster (store_walks),
// for no size decides it there. On the Zen 4 EPYC (2 threads, all of the 32 MiB L3 theirs by
// sysfs) cached stores ran calls of 9.6 MB of tensors in as little as 0.54x the time of
// streamed ones, and at 38.5 MB streamed ones ran 0.39-0.93x the time of cached ones (0.86x
// over the ResNet-50 layers at N = 32, 38.5-308 MB); at 19-21 MB, in three sets of cases in
// turn, the faster of the two forced ways was cached by 1.06x and 1.3x (float32) and streamed
// by 1.24x (16-bit), and the measured way came within 0.99-1.11x of it each time
// (docs/performance-zen4-avx512.md). And a 16-vCPU guest on a Xeon
// reads a 300 MiB L3 as its own: 2 threads there ran 32x28x28x512 channels-last float32
// (154 MB, cached under the bound of half the L3 before) at half the speed per byte of the
// 308 MB layers (streamed) and of 32x7x7x2048 (38.5 MB, cached).
//
// Neither changes a bit of dx, only where its lines go.

#include <cstddef>
#include <cstdint>

#include "backends/cpu/host_caches.h"
#include "backends/cpu/walk_trial.h"

namespace bnscope::cpu {

enum class Stores { Cached, Streamed, Measured };

// tensor_bytes: x, dy and dx together. Measured, whatever the size, where BNSCOPE_STORES forces
// a way.
Stores dx_stores(const HostCaches& caches, std::size_t tensor_bytes, int threads);

// The forward ops' y (tensor_bytes: x and y), not measured: streamed past half of the
// last-level cache, or as BNSCOPE_STORES forces.
bool output_streamed(const HostCaches& caches, std::size_t tensor_bytes);

// The two ways of the grads whose stores are Measured, decided per call size, channel count,
// layout, element type and mode (training grads, whose reduce pass finds what a cached dx left in
// the caches, apart from the single sweeps): "streamed" first, "cached" (BNSCOPE_STORES names
// either, and forces it for every call between the bounds).
Walks& store_walks(bool training);
WalkKey store_key(std::size_t tensor_bytes, std::int64_t channels, bool channels_first,
                  simd::Elem elem);

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
