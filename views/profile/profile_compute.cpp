#include "profile/profile_compute.h"

#include <algorithm>

#include "tensor/error.h"

namespace bnscope {

ProfileBatch profile_backends(const Problem& problem, const std::vector<std::string>& backends,
                              const ProfileOptions& options) {
  ProfileBatch out;
  for (const std::string& b : backends) {
    try {
      out.profiles.push_back(profile_problem(problem, b, options));
    } catch (const std::exception& e) {
      out.errors.push_back(b + ": " + e.what());
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

std::int64_t phase_bytes(const Profile& p, const std::string& phase) {
  const bool runs_op = phase.rfind("kernel", 0) == 0;
  return runs_op ? p.traffic.total() : -1;
}

}  // namespace bnscope
