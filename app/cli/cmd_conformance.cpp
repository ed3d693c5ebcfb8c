// bnscope-cli conformance: every variant a backend (a kernel plugin above all) takes, on the
// shapes where kernels go wrong, against cpu-reference through the one pipeline; a table, JUnit
// XML and JSON for a kernel repository's CI. `selftest --backend NAME` runs it too for any
// backend but the GPU ones.

#include <cmath>
#include <cstdio>
#include <string>

#include "analysis/conformance.h"
#include "backends.h"
#include "command.h"
#include "conformance_command.h"
#include "flag_reader.h"
#include "io/atomic_file.h"
#include "report/cells.h"
#include "report/conformance_writers.h"
#include "tensor/error.h"

namespace bnscope::cli {

namespace {

std::string abs_text(double v) {
  if (std::isinf(v)) return "NaN/Inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

void print_row(const ConformanceRow& row, bool verbose) {
  const bool unsupported = row.verdict == ConformanceVerdict::Unsupported;
  const std::string label = unsupported ? row.c.variant.label() : row.c.label();
  std::printf(
      "%-11s %9s %9s %9s  %s\n", std::string(verdict_name(row.verdict)).c_str(),
      unsupported || row.verdict == ConformanceVerdict::Error ? "-" : abs_text(row.max_abs).c_str(),
      unsupported || row.verdict == ConformanceVerdict::Error ? "-" : ulp_text(row.max_ulp).c_str(),
      unsupported || row.verdict == ConformanceVerdict::Error ? "-"
                                                              : abs_text(row.worst_ratio).c_str(),
      label.c_str());
  const bool failing =
      row.verdict == ConformanceVerdict::Fail || row.verdict == ConformanceVerdict::Error;
  if (!row.cause_title.empty() && (failing || verbose))
    std::printf("%42slikely cause: %s%s\n", "",
                row.cause_code.empty() ? "" : (row.cause_code + ": ").c_str(),
                row.cause_title.c_str());
  if (!row.detail.empty() && (failing || verbose)) std::printf("%42s%s\n", "", row.detail.c_str());
}

}  // namespace

int run_conformance_command(const std::string& command, Args args) {
  ConformanceRequest request;
  std::string junit, json;
  bool verbose = false;
  FlagReader(command)
      .text("--backend", request.backend)
      .text("--reference", request.reference)
      .text("--filter", request.filter)
      .text("--junit", junit)
      .text("--json", json)
      .set("--no-causes", request.find_causes, false)
      .set("--verbose", verbose)
      .set("-v", verbose)
      .read(args);
  if (request.backend.empty())
    fail("--backend NAME is required (a plugin's name, or any backend: " + [] {
      app::register_all_backends();
      return BackendRegistry::instance().names_joined();
    }() + ")");
  if (!junit.empty()) check_output_file(junit, "--junit");  // before the work, not after
  if (!json.empty()) check_output_file(json, "--json");
  app::register_all_backends();
  if (Backend* b = BackendRegistry::instance().find(request.backend))
    std::printf("conformance of %s (%s) against %s\n\n", request.backend.c_str(),
                std::string(b->description()).c_str(), request.reference.c_str());
  const ConformanceResult result = run_conformance(request);
  std::printf("%-11s %9s %9s %9s  %s\n", "verdict", "max|a-b|", "max ULP", "worst", "case");
  for (std::size_t i : result.failing_first()) print_row(result.rows[i], verbose);
  std::printf(
      "\n%s: %d passed, %d failed, %d errors, %d unsupported ('worst' is the largest error over "
      "its tolerance, the pipeline's per-dtype tolerances; above 1 fails)\n",
      result.passed() ? "PASS" : "FAIL", result.count(ConformanceVerdict::Pass),
      result.count(ConformanceVerdict::Fail), result.count(ConformanceVerdict::Error),
      result.count(ConformanceVerdict::Unsupported));
  if (!junit.empty())
    write_file_atomic_stream(junit, [&](std::ostream& os) { write_conformance_junit(result, os); });
  if (!json.empty())
    write_file_atomic_stream(json, [&](std::ostream& os) { write_conformance_json(result, os); });
  return result.passed() ? kExitOk : kExitMismatch;
}

namespace {

int run(Args args) {
  return run_conformance_command("conformance", args);
}

const CommandRegistration reg{
    {"conformance",
     "check a backend (your kernel plugin) against cpu-reference over every variant it takes",
     "usage: bnscope-cli conformance --backend NAME [--plugin PATH.so] [--filter TEXT]\n"
     "                               [--junit FILE] [--json FILE] [--reference B] [--no-causes]\n"
     "                               [--verbose]\n\n"
     "Runs every variant the backend takes (op x layout x mode x reserve convention x dtype;\n"
     "a plugin's declared ones) on shapes with C=1, M=1, odd sizes, 5-D for the 3-D layouts, an\n"
     "empty batch, NaN/Inf inputs, epsilon 0 and epsilon below cuDNN's minimum, compares each\n"
     "with cpu-reference as `diff` does (TensorFlow's tolerances per dtype) and prints one line\n"
     "per case, failing first, with the worst |a-b|, ULP and the likely cause.\n"
     "  --backend NAME  the backend to check: a plugin's name (--plugin PATH.so loads one;\n"
     "                  BNSCOPE_PLUGIN_PATH lists folders of them) or any bnscope backend\n"
     "  --filter T      only cases whose label contains T ('GradV3 NCHW', 'float16', 'C=1')\n"
     "  --junit FILE    JUnit XML, one test case per case, for CI\n"
     "  --json FILE     the table as JSON (schema bnscope-conformance/1)\n"
     "  --reference B   compare with B instead of cpu-reference\n"
     "  --no-causes     do not re-run the known traps for failing cases\n"
     "  --verbose       print causes and details of passing cases too\n"
     "Exit status: 0 every case passed, 1 a case failed or could not run, 2 bad flags or no case\n"
     "matches --filter, 3 the backend is not available here.",
     run}};

}  // namespace
}  // namespace bnscope::cli
