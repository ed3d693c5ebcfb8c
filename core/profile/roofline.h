#pragma once
// The CPU roofline an app session measures once: the copy probe moves with the host's other
// load (53.6 GB/s in one run, 106.5 in the next on the same host), so a probe beside every
// profile makes "% of roofline" incomparable across runs. Here the best of several probes is
// taken once, remembered with when and how it was measured, and measured again only on request.

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "profile/profiler.h"

namespace bnscope {

struct RooflineMeasurement {
  double gbps = 0;  // the best probe, read plus write, 1e9 bytes per GB
  int threads = 0;  // as asked for (0: all)
  int threads_used = 0;
  std::size_t bytes = 0;  // each of the probe's two arrays
  int probes = 0;
  std::chrono::system_clock::time_point when;  // when the last probe ended
  // "best of 5 copy probes of 48 MiB on 2 threads"
  std::string how() const;
  // "copy roofline, best of 5 copy probes of 48 MiB on 2 threads, measured at
  // 2026-01-31T12:00:00Z": a Profile's roofline_source.
  std::string source() const;
};

class CopyRoofline {
 public:
  // One probe's GB/s for (threads, bytes). Empty: measure_copy_bandwidth's copies between two
  // arrays allocated and first touched once per measurement (CopyProbe).
  using Probe = std::function<double(int threads, std::size_t bytes)>;
  static constexpr int kProbes = 5;

  explicit CopyRoofline(Probe probe = {}, int probes = kProbes);

  // The measurement made before for these threads and bytes, else one made now: `probes` probes
  // in a row, the best kept. Blocks while it measures (call it off the UI thread); a caller
  // meanwhile waits for that measurement and takes it. Throws what the probe throws.
  RooflineMeasurement get(int threads, std::size_t bytes);
  // Measures again now, replacing what was measured for these threads and bytes.
  RooflineMeasurement remeasure(int threads, std::size_t bytes);
  // Without measuring: the measurement for these, or the latest of any; never blocks on one in
  // flight.
  std::optional<RooflineMeasurement> cached(int threads, std::size_t bytes) const;
  std::optional<RooflineMeasurement> latest() const;
  // Measurements made so far (each of `probes` probes).
  int measurements() const;
  // A measurement is in flight (for a progress line).
  bool measuring() const { return measuring_now_.load(std::memory_order_relaxed); }

 private:
  RooflineMeasurement measure(int threads, std::size_t bytes);

  Probe probe_;
  int probes_;
  std::mutex measuring_;      // held for a whole measurement: one at a time
  mutable std::mutex state_;  // held only to read or store what was measured
  std::map<std::pair<int, std::size_t>, RooflineMeasurement> measured_;
  std::optional<RooflineMeasurement> latest_;
  int measurements_ = 0;
  std::atomic<bool> measuring_now_{false};
};

// Sets p's roofline to m (its GB/s, source and p's fraction of it).
void apply_roofline(Profile& p, const RooflineMeasurement& m);

}  // namespace bnscope
