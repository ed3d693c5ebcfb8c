#pragma once
// Runs one problem on one backend with warm-up and repetitions and reports per-phase timing
// statistics, bytes moved under the minimum-traffic model, achieved bandwidth and its fraction of
// a roofline: the copy bandwidth measured in the same run for CPU backends, the device peak the
// caller passes for GPU backends.

#include <atomic>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "backends/backend.h"
#include "ops/problem.h"
#include "ops/result.h"
#include "profile/clock.h"
#include "profile/counters.h"
#include "profile/event_store.h"
#include "profile/timing_stats.h"
#include "profile/traffic.h"

namespace bnscope {

// A device-to-device copy timed beside a GPU backend's runs: its roofline, as the copy probe is
// a CPU backend's. emulated: the copy ran on the host for an emulated device (no device figure).
struct DeviceCopy {
  double gbps = 0;  // read plus write, 1e9 bytes per GB
  bool emulated = false;
};

struct ProfileOptions {
  int warmup = 2;
  int reps = 10;
  int threads = 0;              // 0: all hardware threads
  Clock clock;                  // empty: the steady clock
  double device_peak_gbps = 0;  // roofline for backends that time device phases
  // GPU backends: copies `bytes` on the device (half the minimum traffic, so the copy moves the
  // run's bytes) in this process and run; its bandwidth replaces device_peak_gbps as roofline.
  std::function<DeviceCopy(std::size_t bytes)> device_copy_probe;
  bool measure_copy = true;  // CPU roofline: measure the copy bandwidth after the runs
  std::size_t copy_bytes = std::size_t{256} << 20;
  // GB/s for (threads, bytes); empty: measure_copy_bandwidth.
  std::function<double(int, std::size_t)> copy_probe;
  // Seconds per backend for an adaptive profile (0: exactly `warmup` and `reps`). Large problems
  // would otherwise spend most of a report repeating slow runs: one warm-up and
  // min(min_reps, reps) timed runs are always made, more (up to `reps`) only while the profile's
  // time with one more run stays within the budget.
  double time_budget = 0;
  int min_reps = 3;
  // Polled between a run's passes (RunContext::cancel): a cancel lands in any run, warm-ups too.
  const std::atomic<bool>* cancel = nullptr;
};

struct PhaseStats {
  // "kernel:<backend>" for a whole CPU run, then its passes ("pass:reduce", ...); the backend's own
  // phase names otherwise ("upload", "kernel:<name>", "download").
  std::string phase;
  std::vector<double> samples;  // seconds, one per repetition
  TimingStats stats;
};

struct Profile {
  std::string op;
  std::string backend;
  bool measures_speed = true;  // Backend::measures_speed: false, the times are an emulation's
  DType dtype = DType::F32;
  Shape shape;  // of x (t)
  std::string format;
  bool is_training = true;
  int warmup = 0;  // warm-up runs, a reused earlier run included
  int reps = 0;    // timed runs made
  int threads = 0;
  double time_budget = 0;  // ProfileOptions::time_budget; > 0: reps and warmup were adaptive
  std::vector<PhaseStats> phases;
  // A CPU run timed whole on the host clock: its first phase is kernel:<backend> and the rest are
  // its passes. False: the backend timed its own phases (device kernels, a worker's kernel).
  bool host_run = false;
  // What the backend says of its phases (Backend::phase_plan) and its code path
  // (Backend::code_path): the views and writers describe a phase from these, never from the
  // backend's own files.
  std::vector<PhaseInfo> phase_plan;
  std::string code_path;
  TimingStats wall;           // run_backend_into (the run less the output scan), host clock
  double kernel_seconds = 0;  // median time the bandwidth is computed from
  Traffic traffic;
  double achieved_gbps = 0;  // traffic.total() / kernel_seconds, 1e9 bytes per GB
  double roofline_gbps = 0;  // 0 when unknown
  std::string roofline_source;
  double roofline_fraction = 0;
  // A copy probed right after the timed runs (bnscope-cli bench), 0 when none: on a host whose
  // neighbours move the memory bandwidth within minutes, the probe beside the case is the one
  // its times can be set against, not the one taken at the start of a long sweep.
  double copy_after_gbps = 0;
  // Measured hardware counters per kernel beside traffic's model (profile --counters).
  ProfileCounters counters;
  // One event per phase per repetition: the run on the host track, device phases on the device
  // track, a CPU run's passes (pass:<name>) on the pass track, where and when they ran.
  EventStore events;
};

// Empty where p's times and roofline read plainly, else the one sentence every output (CLI,
// report, app) gives: for an emulation, "BACKEND: the times of an emulation on this CPU, not the
// speed of what it emulates"; for a run faster than the copy bandwidth measured beside it (a
// problem that stays in the caches, or a probe that ran at a busier moment), that the roofline
// is no bound for this run.
std::string speed_caveat(const Profile& p);

// Every run writes into one output set taken from the engine's pool (engine/output_pool.h) and
// given back after the last: an earlier run's buffers where the pool holds one (a report's
// verdict run, the app's replaced outcome), whose pages need no faulting in. A set this backend
// itself wrote last, for this very preparation of the problem (Result::prepared), stands for the
// first warm-up: its code, tables and pages are warm.
Profile profile_problem(const Problem& problem, std::string_view backend,
                        const ProfileOptions& options = {});
// The same on a problem prepared already (prepare(problem)): callers that run it otherwise too
// validate and scan the inputs once.
Profile profile_prepared(const Prepared& prepared, std::string_view backend,
                         const ProfileOptions& options = {});

}  // namespace bnscope
