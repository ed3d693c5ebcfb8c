// bnscope-cli report: diff, likely causes and profiles of one problem written as report.html,
// report.json, report.csv and trace.json.

#include <cstdio>
#include <exception>
#include <future>
#include <string>
#include <vector>

#include "analysis/pipeline.h"
#include "backends.h"
#include "command.h"
#include "engine/output_pool.h"
#include "flag_reader.h"
#include "problem_setup.h"
#include "profile/profile_batch.h"
#include "report/writers.h"
#include "tensor/error.h"

namespace bnscope::cli {

namespace {

int run(Args args) {
  app::ProblemArgs pa = app::parse_problem_args(args);
  PipelineRequest request;
  request.backends = {kReferenceBackend, "cpu"};
  std::string out;
  ProfileOptions options;
  options.reps = 5;
  // Large problems: a warm-up and 3 timed runs, more only within the budget (profiler.h).
  options.time_budget = 0.5;
  Shape shape;
  std::uint64_t seed = 1;
  FlagReader("report")
      .list("--backends", request.backends)
      .text("--out", out)
      .text("--against", request.against)
      .set("--allow-missing", request.allow_missing, true)
      .number("--atol", request.diff.atol)
      .number("--rtol", request.diff.rtol)
      .integer("--reps", options.reps, 1, 100000)
      .number("--time-budget", options.time_budget)
      .integer("--threads", options.threads, 0, 1024)
      .number("--peak-gbps", options.device_peak_gbps)
      .shape("--shape", shape)
      .seed("--seed", seed, INT32_MAX)
      .read(pa.rest);
  if (out.empty()) fail("report needs --out DIR (where report.html and the others go)");
  if (request.backends.empty()) fail("--backends needs at least one backend");
  OutputSet files(out, report_file_names(), "--out");  // the path is checked before the work
  app::register_all_backends();
  const Problem problem = problem_or_sample(pa, shape, seed);
  // The inputs' checksums, a pass over every byte, are made beside the runs.
  std::future<ProblemInfo> info =
      std::async(std::launch::async, [&problem] { return describe_problem(problem); });
  const Prepared prepared = prepare(problem);  // once: the runs and the profiles share it
  PipelineResult result = run_pipeline(problem, prepared, request);

  std::vector<std::string> profiled;
  for (const Result& r : result.runs) profiled.push_back(r.backend);
  // The verdict is made: the first run's output set goes to the engine's pool, where every
  // profile and the copy probe write into it (no fresh pages to fault in per backend: every
  // backend's outputs come from allocate_outputs, the same shapes and dtypes) and where that
  // backend's verdict run is its warm-up; the others' go now.
  result.expected.clear();
  if (!result.runs.empty()) output_pool().give(std::move(result.runs.front()));
  result.runs.clear();
  // One copy-bandwidth roofline for every CPU profile of the report, from buffers a few times
  // the last-level cache rather than the default's 2 x 256 MiB, which would outweigh the data:
  // in the outputs' largest buffer when it holds both arrays.
  options.copy_bytes = std::size_t{64} << 20;
  ProfileBatch batch = profile_backends(prepared, profiled, options);
  output_pool().clear();
  if (batch.first_error) std::rethrow_exception(batch.first_error);
  ProblemInfo described = info.get();
  described.source = pa.source;
  const Report report =
      assemble_report(problem, std::move(described), &result, std::move(batch.profiles));
  const std::vector<std::string> written = write_report_files(report, files);
  std::printf("%s: %s\n", describe_case(problem).c_str(),
              !report.has_diff       ? "no diff (one backend)"
              : report.diff.passed() ? "all outputs agree"
                                     : "some outputs disagree");
  if (report.has_diff)
    std::printf("reference: %s (%s)\n", result.reference.c_str(),
                result.reference_is_backend ? "backend" : "saved outputs");
  for (const std::string& f : written) std::printf("wrote %s/%s\n", out.c_str(), f.c_str());
  return report.has_diff && !report.diff.passed() ? kExitMismatch : kExitOk;
}

const CommandRegistration reg{
    {"report", "diff + causes + profile of one problem as HTML, JSON, CSV and Chrome trace",
     "usage: bnscope-cli report [problem flags] --out DIR [--backends A,B,...]\n"
     "                          [--against DIR|FILE.npz] [--allow-missing] [--atol A]\n"
     "                          [--rtol R] [--reps N] [--time-budget S] [--threads N]\n"
     "                          [--peak-gbps X] [--shape N,H,W,C] [--seed S]\n\n"
     "Runs the problem on every backend (default cpu-reference,cpu), compares each with the\n"
     "reference (cpu-reference whenever listed, else the first; or --against, as in diff),\n"
     "searches the cause catalog when they disagree, profiles each backend, and writes\n"
     "DIR/report.html (self-contained, no network), DIR/report.json\n"
     "(schema bnscope-report/2), DIR/report.csv (one row per measurement) and DIR/trace.json\n"
     "(Chrome trace: chrome://tracing or ui.perfetto.dev). Exit status 1 when outputs disagree.\n"
     "Profiles make one warm-up (the first backend's verdict run is its) and at least 3 timed\n"
     "runs, more up to --reps (default 5) while a backend's profile stays within\n"
     "--time-budget seconds (default 0.5; 0: exactly --reps after 2 warm-ups).\n\n"
     "problem flags: --op, --input NAME=PATH, --inputs FILE.npz, --problem FILE.npz,\n"
     "--attr KEY=VALUE, --dtype, --convention, --strict",
     run}};

}  // namespace

}  // namespace bnscope::cli
