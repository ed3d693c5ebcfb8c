#pragma once
// Profiles of one problem on several backends as one batch (the Profile tab, bnscope-cli
// report): one output set and one copy probe for all of them; and the batch's profiles laid one
// after another on a single time axis for the timeline.

#include <exception>
#include <string>
#include <vector>

#include "ops/prepared.h"
#include "profile/profiler.h"

namespace bnscope {

struct ProfileBatch {
  std::vector<Profile> profiles;
  std::vector<std::string> errors;  // "<backend>: <why>" for backends that could not be profiled
  // The first of those failures as it was thrown, for a caller that stops at any (its message
  // and error code as they were).
  std::exception_ptr first_error;
};

// Never throws; a backend that fails is reported and the others still run, until one is
// cancelled (options.clock throwing a Cancelled error). Every repetition writes into the output
// set the engine's pool holds (profile_prepared), one set for all the backends, and, without
// options.copy_probe, the copy probe runs in its largest buffer when that holds both of the
// probe's arrays.
ProfileBatch profile_backends(const Prepared& prepared, const std::vector<std::string>& backends,
                              const ProfileOptions& options);
// The same on problem, prepared once for every backend; a problem prepare() refuses is every
// backend's error.
ProfileBatch profile_backends(const Problem& problem, const std::vector<std::string>& backends,
                              const ProfileOptions& options);

// Every profile's events, each profile starting gap seconds after the previous one ended, as
// the Chrome trace writer lays them out.
EventStore combined_events(const std::vector<Profile>& profiles, double gap_fraction = 0.05);

// Every profile's phase plan (Profile::phase_plan), each phase name once, for the timeline.
std::vector<PhaseInfo> combined_phase_plan(const std::vector<Profile>& profiles);

// What one event of a backend's phase moves under the minimum-traffic model (phase_bytes), for
// the GB/s beside its time; bytes < 0 where the model does not say.
struct PhaseBytes {
  std::string backend, phase;
  std::int64_t bytes = -1;
};
// Every profile's phases that appear in its events, with their bytes.
std::vector<PhaseBytes> combined_phase_bytes(const std::vector<Profile>& profiles);

// Bytes the minimum-traffic model charges to a phase: the whole traffic for the phase that
// runs the op ("kernel:..."), a cpu pass's own x-sized tensors once each, unknown (-1) for
// copies and host spans.
std::int64_t phase_bytes(const Profile& p, const std::string& phase);
// GB/s of a phase at its median time under that model; NaN where its bytes are unknown.
double phase_gbps(const Profile& p, const PhaseStats& phase);

}  // namespace bnscope
