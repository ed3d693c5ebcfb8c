// bnscope-cli profile: one problem on one backend in depth: per-phase timings, bytes moved,
// achieved bandwidth and its fraction of the same-run copy bandwidth (or the device peak).

#include <cstdio>

#include "backends.h"
#include "command.h"
#include "device_copy.h"
#include "flag_reader.h"
#include "gpu_counters.h"
#include "io/atomic_file.h"
#include "problem_setup.h"
#include "profile/profiler.h"
#include "report/writers.h"
#include "tensor/error.h"

namespace bnscope::cli {

namespace {

int run(Args args) {
  app::ProblemArgs pa = app::parse_problem_args(args);
  std::string backend = "cpu", json, trace;
  ProfileOptions options;
  Shape shape;
  std::uint64_t seed = 1;
  bool counters = false;
  FlagReader("profile")
      .text("--backend", backend)
      .integer("--reps", options.reps, 1, 100000)
      .integer("--warmup", options.warmup, 0, 1000)
      .integer("--threads", options.threads, 0, 1024)
      .number("--peak-gbps", options.device_peak_gbps)
      .set("--no-copy-probe", options.measure_copy, false)
      .set("--counters", counters, true)
      .text("--json", json)
      .text("--trace", trace)
      .shape("--shape", shape)
      .seed("--seed", seed, INT32_MAX)
      .read(pa.rest);
  if (!json.empty()) check_output_file(json, "--json");  // before the work, not after
  if (!trace.empty()) check_output_file(trace, "--trace");
  app::register_all_backends();
  const Problem problem = problem_or_sample(pa, shape, seed);
  if (options.measure_copy) options.device_copy_probe = app::device_copy_probe_for(backend);
  Report report = new_report("bnscope profile: " + describe_case(problem));
  report.has_problem = true;
  report.problem = describe_problem(problem);
  report.profiles.push_back(profile_problem(problem, backend, options));
  add_devices(report);
  if (counters) app::collect_counters(report.profiles.back());
  const Profile& p = report.profiles.back();

  std::printf("%s on %s: %d reps after %d warm-up", describe_case(problem).c_str(),
              p.backend.c_str(), p.reps, p.warmup);
  std::printf("\n");
  std::printf("  %-24s %12s %12s %12s\n", "phase", "median ms", "min ms", "max ms");
  for (const PhaseStats& ps : p.phases)
    std::printf("  %-24s %12.4f %12.4f %12.4f\n", ps.phase.c_str(), ps.stats.median * 1e3,
                ps.stats.min * 1e3, ps.stats.max * 1e3);
  std::printf("bytes (minimum traffic): %.3f MB (%d x-sized passes + %.0f B per-channel)\n",
              static_cast<double>(p.traffic.total()) / 1e6, p.traffic.data_passes,
              static_cast<double>(p.traffic.channel_bytes));
  std::printf("achieved: %.2f GB/s", p.achieved_gbps);
  if (p.roofline_gbps > 0)
    std::printf(", %.1f %% of %.2f GB/s (%s)", 100 * p.roofline_fraction, p.roofline_gbps,
                p.roofline_source.c_str());
  std::printf("\n");
  if (counters) {
    if (!p.counters.unavailable.empty())
      std::printf("counters: not collected: %s\n", p.counters.unavailable.c_str());
    for (const KernelCounters& k : p.counters.kernels)
      std::printf(
          "  %-24s DRAM read %.3f MB, written %.3f MB (model: %.3f MB for the run), "
          "%.1f GB/s = %.1f %% of peak, L2 hit %.1f %%, occupancy %.2f\n",
          k.kernel.c_str(), k.dram_bytes_read / 1e6, k.dram_bytes_written / 1e6,
          static_cast<double>(p.traffic.total()) / 1e6, k.dram_gbps, k.dram_peak_percent,
          k.l2_hit_percent, k.achieved_occupancy);
  }
  if (const std::string caveat = speed_caveat(p); !caveat.empty())
    std::printf("note: %s\n", caveat.c_str());
  if (!json.empty())
    write_file_atomic_stream(json, [&](std::ostream& os) { write_report_json(report, os); });
  if (!trace.empty())
    write_file_atomic_stream(trace, [&](std::ostream& os) { write_chrome_trace(report, os); });
  return kExitOk;
}

const CommandRegistration reg{
    {"profile", "time one problem on one backend: phases, bytes moved, GB/s vs copy bandwidth",
     "usage: bnscope-cli profile [problem flags] [--backend B] [--reps N] [--warmup N]\n"
     "                           [--threads N] [--peak-gbps X] [--no-copy-probe] [--counters]\n"
     "                           [--json FILE] [--trace FILE] [--shape N,H,W,C] [--seed S]\n\n"
     "Runs the problem --warmup times (default 2), then --reps times (default 10), and prints\n"
     "min/median/max per phase (a CPU run: kernel:cpu, the whole run, then the passes the\n"
     "planner chose: pass:reduce, pass:write, ...). Bytes follow the minimum-traffic model\n"
     "(each input read once, each output written once). The roofline is\n"
     "the copy bandwidth measured right after the runs with the same thread count (CPU) or,\n"
     "for GPU backends, a device-to-device copy of the run's bytes measured in the same run\n"
     "(cuda-emu: a host copy, labelled emulated; --peak-gbps where no device copy runs).\n"
     "--no-copy-probe skips both probes. --counters collects each kernel's hardware counters\n"
     "(DRAM bytes read and written beside the model's, DRAM GB/s and percent of peak, L2 hit "
     "rate,\n"
     "occupancy) where the GPU driver allows, else prints why not.\n"
     "--json writes the report JSON (schema bnscope-report/2), --trace a Chrome trace\n"
     "(chrome://tracing, Perfetto). Without inputs a seeded sample problem is generated.\n\n"
     "problem flags: --op, --input NAME=PATH, --inputs FILE.npz, --problem FILE.npz,\n"
     "--attr KEY=VALUE, --dtype, --convention, --strict",
     run}};

}  // namespace

}  // namespace bnscope::cli
