// bnscope-cli sweep: every layer of a capture through the backends, compared with TensorFlow's
// recorded outputs (or a backend); one row per layer, then a summary.

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <optional>

#include "analysis/sweep.h"
#include "backends.h"
#include "command.h"
#include "flag_reader.h"
#include "io/atomic_file.h"
#include "io/capture_folder.h"
#include "report/sweep_writers.h"
#include "table_text.h"
#include "tensor/error.h"

namespace bnscope::cli {

namespace {

// Every output any row compared, in first-seen order: the table's column groups.
std::vector<std::string> output_columns(const SweepResult& s) {
  std::vector<std::string> names;
  for (const SweepRow& r : s.rows)
    for (const SweepOutput& o : r.outputs)
      if (o.compared && std::find(names.begin(), names.end(), o.name) == names.end())
        names.push_back(o.name);
  return names;
}

void print_table(const SweepResult& s, const std::vector<std::size_t>& order) {
  const std::vector<std::string> outs = output_columns(s);
  std::printf("\n%4s  %-20s %-21s %-14s %-9s", "#", "layer", "op", "shape", "dtype");
  for (const std::string& o : outs) std::printf(" %-20s", o.c_str());
  std::printf(" %-18s %s\n", "verdict", "likely cause");
  std::printf("%4s  %-20s %-21s %-14s %-9s", "", "", "", "", "");
  for (std::size_t i = 0; i < outs.size(); ++i) std::printf(" %-10s %-9s", "max|a-b|", "max ULP");
  std::printf("\n");
  for (std::size_t i : order) {
    const SweepRow& r = s.rows[i];
    std::printf("%4d  %-20s %-21s %-14s %-9s", r.layer.index, r.layer.name.c_str(),
                r.layer.op.c_str(), r.shape.c_str(), r.dtype.c_str());
    for (const std::string& name : outs) {
      const SweepOutput* o = nullptr;
      for (const SweepOutput& x : r.outputs)
        if (x.name == name && x.compared) o = &x;
      if (o)
        std::printf(" %-10s %-9s", num(o->max_abs).c_str(), ulps(o->max_ulp).c_str());
      else
        std::printf(" %-10s %-9s", "-", "-");
    }
    std::printf(" %-18s %s\n", r.verdict().c_str(), r.likely_cause().c_str());
  }
}

void print_summary(const SweepResult& s) {
  std::printf("\nsummary: %zu layers: %d agree, %d disagree, %d broken\n", s.rows.size(),
              s.agreeing(), s.disagreeing(), s.broken());
  for (const SweepRow& r : s.rows) {
    if (r.passed()) continue;
    if (r.broken()) {
      std::printf("  layer %d %s: broken: %s\n", r.layer.index, r.layer.name.c_str(),
                  r.error.c_str());
      continue;
    }
    std::printf("  layer %d %s: %s; likely cause: %s\n", r.layer.index, r.layer.name.c_str(),
                r.verdict().c_str(), r.likely_cause().c_str());
  }
  std::printf("verdict: %s\n", s.passed() ? "every layer agrees within tolerance"
                                          : "some layers disagree or could not be run");
}

// On a terminal only: a log or a pipe gets the table and nothing else.
SweepProgress terminal_progress() {
  if (!isatty(fileno(stderr))) return {};
  return [](std::size_t done, std::size_t total, const std::string& layer) {
    if (done == total)
      std::fprintf(stderr, "\r\033[K");
    else
      std::fprintf(stderr, "\r\033[Ksweep: layer %zu of %zu: %s", done + 1, total, layer.c_str());
    std::fflush(stderr);
  };
}

int run(Args args) {
  if (args.empty() || args[0].starts_with("-"))
    fail("sweep needs a capture folder first: bnscope-cli sweep DIR [flags]");
  const std::string dir = args[0];
  SweepRequest request;
  std::string order = "model", json, report;
  FlagReader flags("sweep");
  flags.list("--backends", request.backends)
      .text("--against", request.against)
      .text("--order", order)
      .text("--json", json)
      .text("--report", report)
      .number("--atol", request.diff.atol)
      .number("--rtol", request.diff.rtol)
      .set("--no-causes", request.find_causes, false);
  flags.read(args.subspan(1));
  if (order != "model" && order != "worst") fail("--order " + order + ": expected model or worst");
  // The output paths before the work, not after it.
  if (!json.empty()) check_output_file(json, "--json");
  std::optional<OutputSet> report_files;
  if (!report.empty()) report_files.emplace(report, sweep_report_file_names(), "--report");

  app::register_all_backends();
  const Capture capture = read_capture_folder(dir);
  std::printf("capture %s: model %s, TensorFlow %s, Keras %s, %s, policy %s, %zu layers\n",
              dir.c_str(), capture.model.c_str(), capture.tensorflow.c_str(), capture.keras.c_str(),
              capture.device.c_str(), capture.dtype_policy.c_str(), capture.layers.size());
  const SweepResult result = run_sweep(capture, request, terminal_progress());
  std::string backends;
  for (const std::string& b : result.backends) backends += (backends.empty() ? "" : ",") + b;
  std::printf("reference: %s; backends: %s\n",
              result.reference == kAgainstTensorFlow ? "tf (TensorFlow's recorded outputs)"
                                                     : result.reference.c_str(),
              backends.c_str());
  std::vector<std::size_t> rows(result.rows.size());
  std::iota(rows.begin(), rows.end(), 0);
  if (order == "worst") rows = result.worst_first();
  print_table(result, rows);
  for (const CaptureSkip& s : capture.skipped)
    std::printf("not captured: %s: %s\n", s.name.c_str(), s.reason.c_str());
  print_summary(result);
  if (!json.empty())
    write_file_atomic_stream(json, [&](std::ostream& os) { write_sweep_json(result, os, rows); });
  if (report_files) write_sweep_report_files(result, *report_files, rows);
  return result.passed() ? kExitOk : kExitMismatch;
}

const CommandRegistration reg{
    {"sweep", "run every layer of a capture and compare with TensorFlow's outputs",
     "usage: bnscope-cli sweep DIR [--backends A,B,...] [--against tf|BACKEND]\n"
     "                        [--order model|worst] [--json FILE] [--report OUTDIR]\n"
     "                        [--atol A] [--rtol R] [--no-causes]\n\n"
     "DIR is a capture folder written by bnscope-capture: manifest.json and one problem file\n"
     "per batch-normalization layer carrying TensorFlow's outputs. Every layer runs on each\n"
     "backend (default cpu-reference,cpu) and is compared with TensorFlow's recorded outputs\n"
     "(--against tf, the default when the capture has them) or with a backend. One row per\n"
     "layer: index, name, op, shape, dtype, each output's worst |a-b| and ULP over the\n"
     "backends, the verdict and the likely cause; then a summary. A layer file that cannot be\n"
     "read, does not match the manifest or cannot run is reported in its row as BROKEN and\n"
     "the sweep goes on. --order worst lists broken layers first, then by error relative to\n"
     "tolerance. --json writes the table as JSON; --report writes report.html, report.json\n"
     "and report.csv (the table first, then a section per layer that fails).\n"
     "Exit status: 0 every layer agrees, 1 some disagree or are broken, 2 bad input (a\n"
     "folder that is not a capture, a manifest that does not match the files, bad flags),\n"
     "3 backend unavailable.",
     run}};

}  // namespace

}  // namespace bnscope::cli
