#include "profile/profile_compute.h"

#include <algorithm>
#include <optional>

#include "engine/engine.h"
#include "ops/prepared.h"
#include "profile/copy_bandwidth.h"
#include "tensor/error.h"

namespace bnscope {

namespace {

// The copy probe in the output set's largest buffer, when it holds both arrays: no fresh pages
// beside the outputs. Zero when it does not.
double probe_in(Result& r, int threads, std::size_t bytes) {
  Tensor* largest = nullptr;
  for (OutputTensor& o : r.outputs)
    if (o.tensor.sole_owner() && (!largest || o.tensor.nbytes() > largest->nbytes()))
      largest = &o.tensor;
  bytes &= ~std::size_t{63};
  if (!largest || bytes == 0 || largest->nbytes() < 2 * bytes) return 0;
  auto* base = static_cast<std::byte*>(largest->raw());  // 64-byte aligned storage
  return measure_copy_bandwidth(threads, base, base + bytes, bytes) / 1e9;
}

}  // namespace

ProfileBatch profile_backends(const Problem& problem, const std::vector<std::string>& backends,
                              const ProfileOptions& options, const std::string& restore) {
  ProfileBatch out;
  // Every backend's repetitions write into one set of output buffers, and the copy-bandwidth
  // probe runs once, after them: on a real layer neither the outputs nor the probe's buffers
  // are held twice.
  Result shared;
  ProfileOptions each = options;
  each.measure_copy = false;
  if (!each.result) each.result = &shared;
  for (const std::string& b : backends) {
    try {
      out.profiles.push_back(profile_problem(problem, b, each));
    } catch (const Error& e) {
      out.errors.push_back(b + ": " + e.what());
      if (e.code() == ErrorCode::Cancelled) break;  // the clock stops every later backend too
    } catch (const std::exception& e) {
      out.errors.push_back(b + ": " + e.what());
    }
  }
  std::optional<double> gbps;
  for (Profile& p : out.profiles) {
    if (!options.measure_copy || !p.host_run) continue;
    try {
      if (!gbps && options.copy_probe)
        gbps = options.copy_probe(options.threads, options.copy_bytes);
      if (!gbps) {
        const double in_place = probe_in(*each.result, options.threads, options.copy_bytes);
        if (in_place > 0) gbps = in_place;
      }
      if (!gbps) {
        shared = Result{};  // the outputs first: the probe's buffers never sit beside them
        gbps = measure_copy_bandwidth(options.threads, options.copy_bytes) / 1e9;
      }
    } catch (const std::exception& e) {
      out.errors.push_back(std::string("copy bandwidth: ") + e.what());
      break;
    }
    p.roofline_gbps = *gbps;
    p.roofline_source = "copy bandwidth measured in this run";
    if (p.roofline_gbps > 0) p.roofline_fraction = p.achieved_gbps / p.roofline_gbps;
  }
  if (!restore.empty() && options.result) {
    try {
      // No cancel: the lent set must go back whole. The threads of the app's own runs.
      run_backend_into(prepare(problem), backend_or_throw(restore), *options.result, RunContext{});
    } catch (const std::exception& e) {
      out.errors.push_back(restore + ": " + e.what());
    }
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

std::vector<PhaseInfo> combined_phase_plan(const std::vector<Profile>& profiles) {
  std::vector<PhaseInfo> all;
  for (const Profile& p : profiles)
    for (const PhaseInfo& info : p.phase_plan)
      if (!find_phase(all, info.name)) all.push_back(info);
  return all;
}

std::int64_t phase_bytes(const Profile& p, const std::string& phase) {
  if (phase.rfind("kernel", 0) == 0) return p.traffic.total();
  // A pass moves its own x-sized tensors once each, as its backend models it.
  const PhaseInfo* info = find_phase(p.phase_plan, phase);
  const int tensors = info ? info->x_tensors : 0;
  if (tensors == 0 || p.traffic.data_passes == 0) return -1;
  return p.traffic.data_bytes / p.traffic.data_passes * tensors;
}

}  // namespace bnscope
