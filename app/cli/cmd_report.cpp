// bnscope-cli report: diff, likely causes and profiles of one problem written as report.html,
// report.json, report.csv and trace.json.

#include <cstdio>

#include "analysis/cause_finder.h"
#include "analysis/diff.h"
#include "backends.h"
#include "case_flags.h"
#include "command.h"
#include "engine.h"
#include "flag_reader.h"
#include "report/writers.h"
#include "tensor/error.h"

namespace bnscope::cli {

namespace {

int run(Args args) {
  app::ProblemArgs pa = app::parse_problem_args(args);
  std::vector<std::string> backends{"cpu-reference", "cpu"};
  std::string out, against;
  ProfileOptions options;
  options.reps = 5;
  DiffOptions diff_options;
  Shape shape;
  std::uint64_t seed = 1;
  FlagReader("report")
      .list("--backends", backends)
      .text("--out", out)
      .text("--against", against)
      .number("--atol", diff_options.atol)
      .number("--rtol", diff_options.rtol)
      .integer("--reps", options.reps, 1, 100000)
      .integer("--threads", options.threads, 0, 1024)
      .number("--peak-gbps", options.device_peak_gbps)
      .shape("--shape", shape)
      .seed("--seed", seed, 1 << 30)
      .read(pa.rest);
  if (out.empty()) fail("report needs --out DIR (where report.html and the others go)");
  if (backends.empty()) fail("--backends needs at least one backend");
  OutputSet files(out, report_file_names());  // the path is checked before the work
  app::register_all_backends();
  const Problem problem = problem_or_sample(pa, shape, seed);
  const Prepared prepared = prepare(problem);

  Report report = new_report("bnscope report: " + describe_case(problem));
  report.has_problem = true;
  report.problem = describe_problem(problem);
  std::vector<Result> results;
  for (const std::string& b : backends) results.push_back(run_problem(problem, b));
  report.notes = results.front().notes;

  const Reference reference = reference_outputs(against, prepared, results);
  const std::vector<OutputTensor>& expected = reference.outputs;
  if (!expected.empty()) {
    report.has_diff = true;
    for (std::size_t i = reference.first_candidate; i < results.size(); ++i) {
      report.diff.comparisons.push_back(compare_results(reference.name, expected,
                                                        results[i].backend, results[i].outputs,
                                                        diff_options, &prepared.view));
      if (!report.diff.comparisons.back().passed)
        for (Cause& c : find_causes(problem, results[i].backend, expected, diff_options))
          report.causes.push_back(std::move(c));
    }
  }
  for (const std::string& b : backends)
    report.profiles.push_back(profile_problem(problem, b, options));
  write_report_files(report, files);
  std::printf("%s: %s\n", describe_case(problem).c_str(),
              !report.has_diff       ? "no diff (one backend)"
              : report.diff.passed() ? "all outputs agree"
                                     : "some outputs disagree");
  for (const char* f : {"report.html", "report.json", "report.csv", "trace.json"})
    std::printf("wrote %s/%s\n", out.c_str(), f);
  return report.has_diff && !report.diff.passed() ? kExitMismatch : kExitOk;
}

const CommandRegistration reg{
    {"report", "diff + causes + profile of one problem as HTML, JSON, CSV and Chrome trace",
     "usage: bnscope-cli report [problem flags] --out DIR [--backends A,B,...]\n"
     "                          [--against DIR|FILE.npz] [--atol A] [--rtol R] [--reps N]\n"
     "                          [--threads N] [--peak-gbps X] [--shape N,H,W,C] [--seed S]\n\n"
     "Runs the problem on every backend (default cpu-reference,cpu), compares each with the\n"
     "first (or with --against), tests the known traps when they disagree, profiles each\n"
     "backend, and writes DIR/report.html (self-contained, no network), DIR/report.json\n"
     "(schema bnscope-report/1), DIR/report.csv (one row per measurement) and DIR/trace.json\n"
     "(Chrome trace: chrome://tracing or ui.perfetto.dev). Exit status 1 when outputs disagree.\n\n"
     "problem flags: --op, --input NAME=PATH, --inputs FILE.npz, --problem FILE.npz,\n"
     "--attr KEY=VALUE, --dtype, --convention, --strict",
     run}};

}  // namespace

}  // namespace bnscope::cli
