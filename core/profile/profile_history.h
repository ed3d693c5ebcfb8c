#pragma once
// The profile runs of an app session, kept across changes of the problem so that a later run
// can be set against an earlier one, as Nsight Compute's baselines are: a bounded list of runs
// (each the profiles of one batch, with the problem, the settings and when), one of them pinned
// as the baseline; and the per-phase comparison of a profile with its baseline.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "profile/profiler.h"

namespace bnscope {

// One profile run: the batch's profiles, one per backend.
struct ProfileRun {
  std::uint64_t id = 0;  // given by the history: 1, 2, ... in the order added
  std::vector<Profile> profiles;
  std::string problem;            // describe_case of the problem profiled
  std::uint64_t problem_key = 0;  // the caller's identity of that problem (the app: a revision)
  int reps = 0;
  int threads = 0;  // 0: all
  std::chrono::system_clock::time_point when;
  // Read back from the history of an earlier start of the app (profile_history_file.h): its
  // problem_key names nothing in this one.
  bool earlier_session = false;
  const Profile* find(std::string_view backend) const;
};

class ProfileHistory {
 public:
  static constexpr std::size_t kCapacity = 100;
  explicit ProfileHistory(std::size_t capacity = kCapacity);

  // Adds run (its events dropped: the history keeps figures, not timelines) and returns its id.
  // Beyond capacity the oldest run goes, never the baseline.
  std::uint64_t add(ProfileRun run);
  const std::vector<ProfileRun>& runs() const { return runs_; }  // oldest first
  const ProfileRun* find(std::uint64_t id) const;
  std::size_t capacity() const { return capacity_; }

  // Pins run `id` as the baseline; false (and the baseline unchanged) when there is none.
  bool pin(std::uint64_t id);
  void clearBaseline() { baseline_.reset(); }
  const ProfileRun* baseline() const;
  void clear();

 private:
  std::size_t capacity_;
  std::vector<ProfileRun> runs_;
  std::optional<std::uint64_t> baseline_;
  std::uint64_t next_id_ = 1;
};

// A phase's median set against the baseline's.
struct PhaseDelta {
  std::string phase;  // a phase's name; "wall" for the whole run
  double seconds = 0;
  double baseline_seconds = 0;
  double delta_seconds = 0;  // seconds - baseline_seconds: negative is faster
  double percent = 0;        // 100 * delta_seconds / baseline_seconds; NaN when that is 0
  // From the bytes the minimum-traffic model charges the phase (phase_bytes); NaN where it
  // charges none (copies, the wall).
  double gbps = 0;
  double baseline_gbps = 0;
  double delta_gbps = 0;
};

struct ProfileComparison {
  std::string backend;
  std::string baseline_backend;
  std::vector<PhaseDelta> phases;  // the phases both have, in the profile's order
  PhaseDelta wall;
  std::vector<std::string> only_in_profile;   // phases the baseline lacks
  std::vector<std::string> only_in_baseline;  // phases the profile lacks
};

ProfileComparison compare_profiles(const Profile& profile, const Profile& baseline);

// The phase named `phase` of comparison c ("wall" for the whole run), or null when only one side
// has it.
const PhaseDelta* find_delta(const ProfileComparison& c, std::string_view phase);

}  // namespace bnscope
