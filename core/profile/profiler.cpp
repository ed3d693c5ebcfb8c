#include "profile/profiler.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "engine/engine.h"
#include "engine/output_pool.h"
#include "profile/copy_bandwidth.h"
#include "tensor/error.h"

namespace bnscope {

namespace {

bool is_device_phase(const std::string& phase) {
  return phase.rfind("kernel:", 0) == 0 || phase == "upload" || phase == "download";
}

void check_reps(int reps) {
  if (reps < 1) fail(ErrorParts{Option::Reps, std::to_string(reps), {}, "at least 1"});
}

}  // namespace

std::string speed_caveat(const Profile& p) {
  if (!p.measures_speed)
    return p.backend + ": the times of an emulation on this CPU, not the speed of what it emulates";
  // A few percent over is the two measurements' noise.
  const bool measured = p.roofline_source.rfind("copy bandwidth", 0) == 0;
  if (measured && p.roofline_gbps > 0 && p.roofline_fraction > 1.05) {
    char line[200];
    std::snprintf(line, sizeof line,
                  ": %.0f%% of the %.3g GB/s roofline: the tensors stayed in the caches between "
                  "repetitions, or the machine was busier while the roofline was measured",
                  p.roofline_fraction * 100, p.roofline_gbps);
    return p.backend + line;
  }
  return {};
}

Profile profile_problem(const Problem& problem, std::string_view backend_name,
                        const ProfileOptions& options) {
  check_reps(options.reps);
  Backend& backend = backend_or_throw(backend_name);
  return profile_prepared(prepare(problem), backend.name(), options);
}

Profile profile_prepared(const Prepared& p, std::string_view backend_name,
                         const ProfileOptions& options) {
  check_reps(options.reps);
  const Clock clock = options.clock ? options.clock : Clock(steady_seconds);
  Backend& backend = backend_or_throw(backend_name);

  Profile prof;
  prof.op = std::string(p.op->name);
  prof.backend = std::string(backend.name());
  const std::string host_kernel = "kernel:" + prof.backend;  // a CPU run's one host event
  prof.measures_speed = backend.measures_speed();
  prof.phase_plan = backend.phase_plan(p, options.threads);
  prof.code_path = backend.code_path();
  prof.dtype = p.t;
  prof.shape = p.inputs.empty() ? Shape{} : p.in(p.op->data_input()).shape();
  prof.format = std::string(data_format_name(p.format));
  prof.is_training = p.is_training;
  prof.threads = options.threads;
  prof.time_budget = std::max(options.time_budget, 0.0);
  const bool adaptive = prof.time_budget > 0;

  RunContext ctx;
  ctx.threads = options.threads;
  ctx.cancel = options.cancel;
  // The pool's set goes back whatever happens, a cancel or a failing run included.
  struct PoolSet {
    Result r = output_pool().take();
    ~PoolSet() { output_pool().give(std::move(r)); }
  } held;
  Result& r = held.r;
  const int prior = p.id != 0 && r.prepared == p.id && r.backend == backend.name() ? 1 : 0;
  const int warmup =
      adaptive ? std::min(std::max(options.warmup, 0), 1) : std::max(options.warmup, 0);
  const double began = adaptive ? clock() : 0;
  prof.warmup = std::min(prior, warmup);
  for (; prof.warmup < warmup; ++prof.warmup) run_backend_into(p, backend, r, ctx);
  const int min_reps = adaptive ? std::clamp(options.min_reps, 1, options.reps) : options.reps;

  std::vector<double> wall;
  std::vector<std::string> order;  // phases in first-seen order
  std::map<std::string, std::vector<double>> samples;
  double origin = 0;
  bool device = false;
  for (int i = 0; i < options.reps; ++i) {
    // Past the minimum, one more run only while it would still end within the budget (the
    // last run's time standing for the next one's).
    if (i >= min_reps && clock() - began + wall.back() > prof.time_budget) break;
    const double t0 = clock();
    run_backend_into(p, backend, r, ctx);
    const double t1 = clock();
    if (i == 0) origin = t0;
    wall.push_back(t1 - t0);
    // A CPU run is one host event, kernel:<backend> (kernel:cpu, kernel:cpu-reference), with its
    // passes below it; a device run's host event spans its phases.
    const bool timed_device =
        std::any_of(r.timings.begin(), r.timings.end(),
                    [](const PhaseTiming& t) { return t.phase.rfind("kernel:", 0) == 0; });
    const auto rep = static_cast<std::uint32_t>(i);
    prof.events.add(timed_device ? "run" : host_kernel, prof.backend, kHostTrack, t0 - origin,
                    t1 - t0, rep);
    double at = t0 - origin;
    for (const PhaseTiming& t : r.timings) {
      if (!samples.count(t.phase)) order.push_back(t.phase);
      samples[t.phase].push_back(t.seconds);
      const bool dev = is_device_phase(t.phase);
      device = device || t.phase.rfind("kernel:", 0) == 0;
      // Phases with a start (CPU passes, host clock) sit where they ran; device phases have
      // durations only and are laid end to end from the run's start.
      const double start = t.start >= 0 ? t0 - origin + t.start : at;
      prof.events.add(t.phase, prof.backend, dev ? kDeviceTrack : kPassTrack, start, t.seconds,
                      rep);
      at = start + t.seconds;
    }
  }
  prof.reps = static_cast<int>(wall.size());
  prof.wall = timing_stats(wall);
  prof.host_run = !device;
  if (!device) {
    // A CPU run's kernel time is the whole run; its passes stay as reported, within it.
    order.insert(order.begin(), host_kernel);
    samples[host_kernel] = wall;
  }
  for (const std::string& name : order) {
    PhaseStats ps{name, samples[name], timing_stats(samples[name])};
    prof.phases.push_back(std::move(ps));
  }
  if (device) {
    for (const PhaseStats& ps : prof.phases)
      if (ps.phase.rfind("kernel:", 0) == 0) prof.kernel_seconds += ps.stats.median;
  } else {
    prof.kernel_seconds = prof.wall.median;
  }

  prof.traffic = minimum_traffic(p, r.outputs);
  if (prof.kernel_seconds > 0)
    prof.achieved_gbps = static_cast<double>(prof.traffic.total()) / prof.kernel_seconds / 1e9;
  // A GPU backend's (or an emulation's) roofline is the device copy where the caller has one.
  if (options.device_copy_probe && (device || !prof.measures_speed)) {
    const DeviceCopy c =
        options.device_copy_probe(static_cast<std::size_t>(prof.traffic.data_bytes / 2));
    prof.roofline_gbps = c.gbps;
    prof.roofline_source = c.emulated ? "device copy measured in this run (emulated: a host copy)"
                                      : "device copy measured in this run";
  } else if (device) {
    prof.roofline_gbps = options.device_peak_gbps;
    prof.roofline_source = options.device_peak_gbps > 0 ? "device peak bandwidth" : "";
  } else if (options.measure_copy) {
    const int threads = options.threads;
    prof.roofline_gbps = options.copy_probe
                             ? options.copy_probe(threads, options.copy_bytes)
                             : measure_copy_bandwidth(threads, options.copy_bytes) / 1e9;
    prof.roofline_source = "copy bandwidth measured in this run";
  }
  if (prof.roofline_gbps > 0) prof.roofline_fraction = prof.achieved_gbps / prof.roofline_gbps;
  return prof;
}

}  // namespace bnscope
