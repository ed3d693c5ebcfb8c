#include "profile/roofline.h"

#include <algorithm>
#include <cstdio>
#include <memory>

#include "profile/clock.h"
#include "profile/copy_bandwidth.h"
#include "tensor/parallel.h"

namespace bnscope {

namespace {

std::string size_text(std::size_t bytes) {
  char buf[32];
  if (bytes >= (std::size_t{1} << 20) && bytes % (std::size_t{1} << 20) == 0)
    std::snprintf(buf, sizeof buf, "%zu MiB", bytes >> 20);
  else if (bytes >= (std::size_t{1} << 20))
    std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  else
    std::snprintf(buf, sizeof buf, "%zu bytes", bytes);
  return buf;
}

}  // namespace

std::string RooflineMeasurement::how() const {
  return "best of " + std::to_string(probes) + " copy probe" + (probes == 1 ? "" : "s") + " of " +
         size_text(bytes) + " on " + std::to_string(threads_used) + " thread" +
         (threads_used == 1 ? "" : "s");
}

std::string RooflineMeasurement::source() const {
  return "copy roofline, " + how() + ", measured at " + iso8601_utc(when);
}

CopyRoofline::CopyRoofline(Probe probe, int probes)
    : probe_(std::move(probe)), probes_(std::max(1, probes)) {}

RooflineMeasurement CopyRoofline::measure(int threads, std::size_t bytes) {
  RooflineMeasurement m;
  m.threads = threads;
  m.threads_used = resolve_threads(threads);
  m.bytes = bytes;
  m.probes = probes_;
  measuring_now_ = true;
  struct Done {
    std::atomic<bool>& flag;
    ~Done() { flag = false; }
  } done{measuring_now_};
  // The default probe's arrays are allocated and touched once for all its probes, and freed
  // after: nothing is held between measurements.
  std::unique_ptr<CopyProbe> own;
  if (!probe_) own = std::make_unique<CopyProbe>(threads, bytes);
  for (int i = 0; i < probes_; ++i)
    m.gbps = std::max(m.gbps, probe_ ? probe_(threads, bytes) : own->measure() / 1e9);
  m.when = std::chrono::system_clock::now();
  std::lock_guard lock(state_);
  measured_[{threads, bytes}] = m;
  latest_ = m;
  ++measurements_;
  return m;
}

RooflineMeasurement CopyRoofline::get(int threads, std::size_t bytes) {
  std::lock_guard busy(measuring_);
  if (std::optional<RooflineMeasurement> m = cached(threads, bytes)) return *m;
  return measure(threads, bytes);
}

RooflineMeasurement CopyRoofline::remeasure(int threads, std::size_t bytes) {
  std::lock_guard busy(measuring_);
  return measure(threads, bytes);
}

std::optional<RooflineMeasurement> CopyRoofline::cached(int threads, std::size_t bytes) const {
  std::lock_guard lock(state_);
  const auto it = measured_.find({threads, bytes});
  if (it == measured_.end()) return std::nullopt;
  return it->second;
}

std::optional<RooflineMeasurement> CopyRoofline::latest() const {
  std::lock_guard lock(state_);
  return latest_;
}

int CopyRoofline::measurements() const {
  std::lock_guard lock(state_);
  return measurements_;
}

void apply_roofline(Profile& p, const RooflineMeasurement& m) {
  p.roofline_gbps = m.gbps;
  p.roofline_source = m.source();
  p.roofline_fraction = m.gbps > 0 ? p.achieved_gbps / m.gbps : 0;
}

}  // namespace bnscope
