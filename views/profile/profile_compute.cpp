#include "profile/profile_compute.h"

#include <algorithm>
#include <optional>

#include "backends/cpu/cpu_backend.h"
#include "profile/copy_bandwidth.h"
#include "tensor/error.h"

namespace bnscope {

ProfileBatch profile_backends(const Problem& problem, const std::vector<std::string>& backends,
                              const ProfileOptions& options) {
  ProfileBatch out;
  // Every backend's repetitions write into one set of output buffers, and the copy-bandwidth
  // probe runs once, after those are freed: on a real layer neither the outputs nor the probe's
  // buffers are held twice.
  Result shared;
  ProfileOptions each = options;
  each.measure_copy = false;
  if (!each.result) each.result = &shared;
  for (const std::string& b : backends) {
    try {
      out.profiles.push_back(profile_problem(problem, b, each));
    } catch (const std::exception& e) {
      out.errors.push_back(b + ": " + e.what());
    }
  }
  shared = Result{};
  if (!options.measure_copy) return out;
  std::optional<double> gbps;
  for (Profile& p : out.profiles) {
    const bool cpu = std::any_of(p.phases.begin(), p.phases.end(),
                                 [](const PhaseStats& s) { return s.phase == "kernel:cpu"; });
    if (!cpu) continue;
    try {
      if (!gbps)
        gbps = options.copy_probe
                   ? options.copy_probe(options.threads, options.copy_bytes)
                   : measure_copy_bandwidth(options.threads, options.copy_bytes) / 1e9;
    } catch (const std::exception& e) {
      out.errors.push_back(std::string("copy bandwidth: ") + e.what());
      return out;
    }
    p.roofline_gbps = *gbps;
    p.roofline_source = "copy bandwidth measured in this run";
    if (p.roofline_gbps > 0) p.roofline_fraction = p.achieved_gbps / p.roofline_gbps;
  }
  return out;
}

EventStore combined_events(const std::vector<Profile>& profiles, double gap_fraction) {
  EventStore all;
  double at = 0;
  for (const Profile& p : profiles) {
    double lo = 0, hi = 0;
    bool any = false;
    for (const TraceEvent& e : p.events.events()) {
      lo = any ? std::min(lo, e.start) : e.start;
      hi = any ? std::max(hi, e.start + e.duration) : e.start + e.duration;
      any = true;
    }
    if (!any) continue;
    all.append(p.events, at - lo);
    at += (hi - lo) * (1 + gap_fraction);
  }
  return all;
}

std::int64_t phase_bytes(const Profile& p, const std::string& phase) {
  if (phase.rfind("kernel", 0) == 0) return p.traffic.total();
  // A cpu pass moves its own x-sized tensors once each.
  const OpSpec* op = find_op(p.op);
  const int tensors = op ? cpu_pass_tensors(phase, *op) : 0;
  if (tensors == 0 || p.traffic.data_passes == 0) return -1;
  return p.traffic.data_bytes / p.traffic.data_passes * tensors;
}

}  // namespace bnscope
