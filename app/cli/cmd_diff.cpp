// bnscope-cli diff: the same problem through several backends (or against saved outputs), a
// per-output error table, the verdict, and the likely causes when they disagree.

#include <algorithm>
#include <cstdio>

#include "analysis/pipeline.h"
#include "backends.h"
#include "command.h"
#include "flag_reader.h"
#include "io/atomic_file.h"
#include "problem_setup.h"
#include "report/writers.h"
#include "table_text.h"
#include "tensor/error.h"

namespace bnscope::cli {

namespace {

std::size_t distinct(const std::vector<std::string>& names) {
  std::vector<std::string> seen;
  for (const std::string& n : names)
    if (std::find(seen.begin(), seen.end(), n) == seen.end()) seen.push_back(n);
  return seen.size();
}

std::string coords(const std::vector<std::int64_t>& c) {
  std::string s = "(";
  for (std::size_t i = 0; i < c.size(); ++i) s += (i ? "," : "") + std::to_string(c[i]);
  return s + ")";
}

void print_comparison(const Comparison& c) {
  std::printf("\n%s vs %s: %s\n", c.candidate.c_str(), c.reference.c_str(),
              c.passed ? "PASS" : "FAIL");
  std::printf("  %-16s %-8s %-16s %8s %8s %10s %10s %10s %8s %12s  %s\n", "output", "dtype",
              "shape", "atol", "rtol", "max|a-b|", "mean|a-b|", "max rel", "max ULP", "mismatches",
              "verdict");
  for (const OutputDiff& o : c.outputs) {
    std::printf("  %-16s %-8s %-16s ", o.name.c_str(), std::string(dtype_name(o.dtype)).c_str(),
                shape_str(o.shape).c_str());
    if (!o.compared) {
      std::printf("skipped: %s\n", o.note.c_str());
      continue;
    }
    std::printf("%8s %8s %10s %10s %10s %8s %12lld  %s\n", num(o.tolerance.atol).c_str(),
                num(o.tolerance.rtol).c_str(), num(o.max_abs).c_str(), num(o.mean_abs).c_str(),
                num(o.max_rel).c_str(), ulps(o.max_ulp).c_str(),
                static_cast<long long>(o.mismatches), o.passed ? "pass" : "FAIL");
  }
  for (const std::string& n : c.notes) std::printf("  note: %s\n", n.c_str());
  for (const OutputDiff& o : c.outputs) {
    if (!o.note.empty() && o.compared)
      std::printf("  note (%s): %s\n", o.name.c_str(), o.note.c_str());
    if (o.passed || o.worst.empty()) continue;
    // A NaN facing a number fails at any tolerance: say so rather than "passes at atol inf".
    const std::string passes =
        o.nan_mismatches > 0
            ? std::to_string(o.nan_mismatches) + " NaN on one side only: no tolerance passes them"
            : std::string(kRequiredAtolWords) + " " + num(o.required_atol);
    std::printf("  %s: %lld of %lld elements outside tolerance (%s); worst:\n", o.name.c_str(),
                static_cast<long long>(o.mismatches), static_cast<long long>(o.count),
                passes.c_str());
    const auto line = [&](const ElementError& w, const char* tail) {
      std::printf("    %-20s channel %-5lld reference %-15.9g candidate %-15.9g ULP %s%s\n",
                  coords(w.coords).c_str(), static_cast<long long>(w.channel), w.reference,
                  w.candidate, ulps(w.ulp).c_str(), tail);
    };
    const std::size_t shown = std::min<std::size_t>(o.worst.size(), 5);
    for (std::size_t i = 0; i < shown; ++i) line(o.worst[i], "");
    // The max ULP column's element, where |a-b| does not rank it among those shown.
    const ElementError* at_max_ulp = o.max_ulp_element ? &*o.max_ulp_element : nullptr;
    for (std::size_t i = shown; !at_max_ulp && i < o.worst.size(); ++i)
      if (o.worst[i].ulp == o.max_ulp) at_max_ulp = &o.worst[i];
    const bool listed = std::any_of(o.worst.begin(), o.worst.begin() + static_cast<long>(shown),
                                    [&](const ElementError& w) { return w.ulp == o.max_ulp; });
    if (at_max_ulp && !listed) line(*at_max_ulp, "  (max ULP)");
    std::int64_t bad_channels = 0;
    for (const ChannelError& ch : o.channels) bad_channels += ch.mismatches > 0;
    if (!o.channels.empty())
      std::printf("    %lld of %zu channels have mismatches\n",
                  static_cast<long long>(bad_channels), o.channels.size());
  }
}

// PREFIX + OUTPUT VALUE, e.g. --atol-x_backprop 1e-4: OUTPUT must be an output of the op, and
// is checked before the value so that a misspelt name is reported as such.
void per_output_flag(FlagReader& flags, const std::string& prefix, const std::string& op_name,
                     std::map<std::string, double>& into) {
  const OpSpec* op = find_op(op_name);
  flags.prefixed(
      prefix,
      [=](const std::string& name) {
        if (!op || op->output_index(name) < 0)
          fail(prefix + name + ": " + op_name + " has no output '" + name + "'");
      },
      [prefix, &into](const std::string& name, const std::string& v) {
        into[name] = parse_double_flag(prefix + name, v);
      });
}

// Which backend (or file) every candidate is compared with, said before any table.
void print_reference(const PipelineResult& r) {
  if (r.reference_is_backend)
    std::printf("reference: %s (backend)\n", r.reference.c_str());
  else
    std::printf("reference: %s (saved outputs)\n", r.reference.c_str());
}

void print_causes(const PipelineResult& r) {
  for (const Comparison& c : r.diff.comparisons) {
    if (c.passed) continue;
    for (const Cause& cause : r.causes) {
      if (cause.candidate != c.candidate) continue;
      if (cause.pattern_only) {
        std::printf("no known cause (%s): %s\n  %s\n  next: %s\n", c.candidate.c_str(),
                    cause.title.c_str(), cause.explanation.c_str(), cause.suggestion.c_str());
        continue;
      }
      if (cause.in_kernel) {
        std::printf("likely cause (%s, %s confidence, in its kernel): %s\n  %s (ratio to it %s)\n",
                    c.candidate.c_str(), std::string(confidence_name(cause.confidence)).c_str(),
                    cause.title.c_str(), cause.explanation.c_str(), num(cause.after).c_str());
        if (!cause.suggestion.empty()) std::printf("  fix: %s\n", cause.suggestion.c_str());
        continue;
      }
      std::printf("%s (%s, %s confidence): %s\n  %s: error ratio %s -> %s (max |a-b| %s -> %s)%s\n",
                  cause.benign ? "explained" : "likely cause", c.candidate.c_str(),
                  std::string(confidence_name(cause.confidence)).c_str(), cause.title.c_str(),
                  cause.explanation.c_str(), num(cause.before).c_str(), num(cause.after).c_str(),
                  num(cause.max_abs_before).c_str(), num(cause.max_abs_after).c_str(),
                  cause.resolves ? ", now within tolerance" : "");
      if (!cause.suggestion.empty()) std::printf("  fix: %s\n", cause.suggestion.c_str());
    }
  }
}

// Where the inputs came from, for the first line: the problem file by name when there was one.
std::string input_source(Args args, const app::ProblemArgs& pa) {
  if (!pa.inputs_given) return "generated sample inputs";
  for (std::size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == "--problem") return "inputs from " + args[i + 1];
  return "inputs from the command line";
}

int run(Args args) {
  app::ProblemArgs pa = app::parse_problem_args(args);
  PipelineRequest request;
  std::string json;
  DiffOptions& options = request.diff;
  Shape shape;
  std::uint64_t seed = 1;
  FlagReader flags("diff");
  flags.list("--backends", request.backends)
      .text("--against", request.against)
      .set("--allow-missing", request.allow_missing, true)
      .number("--atol", options.atol)
      .number("--rtol", options.rtol)
      .integer("--worst", options.worst_k, 0, 1000)
      .text("--json", json)
      .shape("--shape", shape)
      .seed("--seed", seed, INT32_MAX)
      .set("--no-causes", request.find_causes, false);
  per_output_flag(flags, "--atol-", pa.problem.op, options.output_atol);
  per_output_flag(flags, "--rtol-", pa.problem.op, options.output_rtol);
  flags.read(pa.rest);
  if (request.backends.empty())
    request.backends = request.against.empty() ? std::vector<std::string>{kReferenceBackend, "cpu"}
                                               : std::vector<std::string>{"cpu"};
  if (request.against.empty() && distinct(request.backends) < 2)
    fail("--backends needs at least two backends (or give --against FILE)");
  if (!json.empty()) check_output_file(json, "--json");  // before the work, not after

  app::register_all_backends();
  const Problem problem = problem_or_sample(pa, shape, seed);
  const PipelineResult result = run_pipeline(problem, request);

  Report report = new_report("bnscope diff: " + describe_case(problem));
  report.has_problem = true;
  report.problem = describe_problem(problem);
  report.problem.source = pa.source;
  set_verdict(report, result);
  add_devices(report);
  std::printf("%s (%s)\n", describe_case(problem).c_str(), input_source(args, pa).c_str());
  for (const Note& n : result.notes)
    std::printf("%s: %s\n", std::string(note_kind_name(n.kind)).c_str(), note_text(n).c_str());
  print_reference(result);
  for (const Comparison& c : result.diff.comparisons) print_comparison(c);

  const bool passed = result.passed();
  std::printf("\nverdict: %s\n",
              passed ? "all outputs agree within tolerance" : "some outputs disagree");
  if (!passed && request.find_causes) print_causes(result);
  if (!json.empty())
    write_file_atomic_stream(json, [&](std::ostream& os) { write_report_json(report, os); });
  return passed ? kExitOk : kExitMismatch;
}

const CommandRegistration reg{
    {"diff", "compare backends (or saved outputs) element by element; names likely causes",
     "usage: bnscope-cli diff [problem flags] [--backends A,B,...] [--against DIR|FILE.npz]\n"
     "                        [--allow-missing] [--atol A] [--rtol R] [--atol-OUTPUT A] "
     "[--rtol-OUTPUT R]\n"
     "                        [--worst K] [--json FILE] [--shape N,H,W,C] [--seed S] "
     "[--no-causes]\n\n"
     "Runs the problem on every backend (default cpu-reference,cpu) and compares each with the\n"
     "reference: cpu-reference whenever it is listed, else the first backend; or each backend\n"
     "with expected outputs from --against: a directory of OUTPUT.npy files or an .npz with\n"
     "members OUTPUT or out_OUTPUT, holding every output the op writes (--allow-missing\n"
     "compares the ones present), or one OUTPUT.npy. The reference is printed before the\n"
     "tables. An element passes when\n"
     "|a-b| <= atol + rtol*|b|, b the reference; defaults follow TensorFlow's tests per dtype\n"
     "(float 1e-3, half 2e-3, bfloat16 1e-2, double 1e-7). Outputs TensorFlow leaves undefined\n"
     "are skipped. On a mismatch the cause catalog is searched (epsilon fitted, reserve-space\n"
     "convention, layout, Bessel factor, gradient scale, mode, statistics, gamma, precision,\n"
     "channel order, a few channels, summation order, ...): each cause with its fitted value,\n"
     "confidence, error before and after its fix and the fix; when none fits, the error's\n"
     "pattern. Without inputs a seeded sample problem is generated.\n"
     "Exit status: 0 all agree, 1 some disagree, 2 bad input, 3 backend unavailable.\n\n"
     "problem flags: --op, --input NAME=PATH, --inputs FILE.npz, --problem FILE.npz,\n"
     "--attr KEY=VALUE, --dtype, --convention, --strict",
     run}};

}  // namespace

}  // namespace bnscope::cli
