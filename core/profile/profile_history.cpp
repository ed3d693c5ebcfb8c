#include "profile/profile_history.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "profile/profile_batch.h"

namespace bnscope {

const Profile* ProfileRun::find(std::string_view backend) const {
  for (const Profile& p : profiles)
    if (p.backend == backend) return &p;
  return nullptr;
}

ProfileHistory::ProfileHistory(std::size_t capacity)
    : capacity_(std::max<std::size_t>(1, capacity)) {}

std::uint64_t ProfileHistory::add(ProfileRun run) {
  run.id = next_id_++;
  // A run's events are one per phase per repetition: a hundred runs of many repetitions would
  // hold them all for a timeline nobody shows.
  for (Profile& p : run.profiles) p.events = EventStore{};
  runs_.push_back(std::move(run));
  while (runs_.size() > capacity_) {
    const auto oldest = std::find_if(runs_.begin(), runs_.end(), [this](const ProfileRun& r) {
      return !baseline_ || r.id != *baseline_;
    });
    runs_.erase(oldest);
  }
  return runs_.back().id;
}

const ProfileRun* ProfileHistory::find(std::uint64_t id) const {
  for (const ProfileRun& r : runs_)
    if (r.id == id) return &r;
  return nullptr;
}

bool ProfileHistory::pin(std::uint64_t id) {
  if (!find(id)) return false;
  baseline_ = id;
  return true;
}

const ProfileRun* ProfileHistory::baseline() const {
  return baseline_ ? find(*baseline_) : nullptr;
}

void ProfileHistory::clear() {
  runs_.clear();
  baseline_.reset();
}

namespace {

constexpr double kNone = std::numeric_limits<double>::quiet_NaN();

PhaseDelta delta(std::string phase, double seconds, double base, double gbps, double base_gbps) {
  PhaseDelta d;
  d.phase = std::move(phase);
  d.seconds = seconds;
  d.baseline_seconds = base;
  d.delta_seconds = seconds - base;
  d.percent = base > 0 ? 100 * d.delta_seconds / base : kNone;
  d.gbps = gbps;
  d.baseline_gbps = base_gbps;
  d.delta_gbps = gbps - base_gbps;  // NaN when either is
  return d;
}

const PhaseStats* find_phase_stats(const Profile& p, const std::string& phase) {
  for (const PhaseStats& ps : p.phases)
    if (ps.phase == phase) return &ps;
  return nullptr;
}

}  // namespace

ProfileComparison compare_profiles(const Profile& profile, const Profile& baseline) {
  ProfileComparison c;
  c.backend = profile.backend;
  c.baseline_backend = baseline.backend;
  for (const PhaseStats& ps : profile.phases) {
    const PhaseStats* b = find_phase_stats(baseline, ps.phase);
    if (!b) {
      c.only_in_profile.push_back(ps.phase);
      continue;
    }
    c.phases.push_back(delta(ps.phase, ps.stats.median, b->stats.median, phase_gbps(profile, ps),
                             phase_gbps(baseline, *b)));
  }
  for (const PhaseStats& b : baseline.phases)
    if (!find_phase_stats(profile, b.phase)) c.only_in_baseline.push_back(b.phase);
  c.wall = delta("wall", profile.wall.median, baseline.wall.median, kNone, kNone);
  return c;
}

const PhaseDelta* find_delta(const ProfileComparison& c, std::string_view phase) {
  if (phase == "wall") return &c.wall;
  for (const PhaseDelta& d : c.phases)
    if (d.phase == phase) return &d;
  return nullptr;
}

}  // namespace bnscope
