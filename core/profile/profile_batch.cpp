#include "profile/profile_batch.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <set>

#include "engine/engine.h"
#include "engine/output_pool.h"
#include "ops/prepared.h"
#include "profile/copy_bandwidth.h"
#include "tensor/error.h"

namespace bnscope {

namespace {

// The copy probe in the largest buffer of the pool's newest output set (the batch's), when it
// holds both arrays: no fresh pages beside the outputs. Zero when it does not; then that set is
// let go first, so the probe's buffers never sit beside it.
double copy_probe_in_outputs(int threads, std::size_t bytes) {
  Result r = output_pool().take();
  Tensor* largest = nullptr;
  for (OutputTensor& o : r.outputs)
    if (o.tensor.sole_owner() && (!largest || o.tensor.nbytes() > largest->nbytes()))
      largest = &o.tensor;
  bytes &= ~std::size_t{63};
  if (!largest || bytes == 0 || largest->nbytes() < 2 * bytes) return 0;
  auto* base = static_cast<std::byte*>(largest->raw());  // 64-byte aligned storage
  const double gbps = measure_copy_bandwidth(threads, base, base + bytes, bytes) / 1e9;
  output_pool().give(std::move(r));
  return gbps;
}

}  // namespace

ProfileBatch profile_backends(const Prepared& prepared, const std::vector<std::string>& backends,
                              const ProfileOptions& options) {
  ProfileBatch out;
  const auto failed = [&out](const std::string& what, const std::exception& e) {
    out.errors.push_back(what + ": " + e.what());
    if (!out.first_error) out.first_error = std::current_exception();
  };
  // Every backend's repetitions write into one set of output buffers, the one each profile
  // takes from the engine's pool and gives back, and the copy-bandwidth probe runs once, after
  // them: on a real layer neither the outputs nor the probe's buffers are held twice.
  ProfileOptions each = options;
  each.measure_copy = false;
  for (const std::string& b : backends) {
    try {
      out.profiles.push_back(profile_prepared(prepared, b, each));
    } catch (const Error& e) {
      failed(b, e);
      if (e.code() == ErrorCode::Cancelled) break;  // the clock stops every later backend too
    } catch (const std::exception& e) {
      failed(b, e);
    }
  }
  std::optional<double> gbps;
  for (Profile& p : out.profiles) {
    if (!options.measure_copy || !p.host_run) continue;
    try {
      if (!gbps && options.copy_probe)
        gbps = options.copy_probe(options.threads, options.copy_bytes);
      if (!gbps) {
        const double in_place = copy_probe_in_outputs(options.threads, options.copy_bytes);
        if (in_place > 0) gbps = in_place;
      }
      if (!gbps) gbps = measure_copy_bandwidth(options.threads, options.copy_bytes) / 1e9;
    } catch (const std::exception& e) {
      failed("copy bandwidth", e);
      break;
    }
    p.roofline_gbps = *gbps;
    p.roofline_source = "copy bandwidth measured in this run";
    if (p.roofline_gbps > 0) p.roofline_fraction = p.achieved_gbps / p.roofline_gbps;
  }
  return out;
}

ProfileBatch profile_backends(const Problem& problem, const std::vector<std::string>& backends,
                              const ProfileOptions& options) {
  std::optional<Prepared> prepared;
  ProfileBatch refused;
  try {
    prepared = prepare(problem);
  } catch (const std::exception& e) {
    for (const std::string& b : backends) refused.errors.push_back(b + ": " + e.what());
    refused.first_error = std::current_exception();
    return refused;
  }
  return profile_backends(*prepared, backends, options);
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

std::vector<PhaseBytes> combined_phase_bytes(const std::vector<Profile>& profiles) {
  std::vector<PhaseBytes> out;
  for (const Profile& p : profiles) {
    std::set<std::uint32_t> seen;
    for (const TraceEvent& e : p.events.events())
      if (seen.insert(e.name).second) {
        const std::string& phase = p.events.name(e.name);
        out.push_back({p.backend, phase, phase_bytes(p, phase)});
      }
  }
  return out;
}

double phase_gbps(const Profile& p, const PhaseStats& phase) {
  const std::int64_t bytes = phase_bytes(p, phase.phase);
  return bytes >= 0 && phase.stats.median > 0
             ? static_cast<double>(bytes) / phase.stats.median / 1e9
             : std::numeric_limits<double>::quiet_NaN();
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
