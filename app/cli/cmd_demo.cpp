// bnscope-cli demo: every op variant on a built-in sample problem, cpu against cpu-reference.

#include <algorithm>
#include <cstdio>
#include <string>

#include "analysis/pipeline.h"
#include "command.h"
#include "flag_reader.h"
#include "ops/sample.h"
#include "tensor/error.h"

namespace bnscope::cli {

namespace {

// Largest |a-b| over every compared output, relative to the largest |b|.
double max_rel_error(const Comparison& c) {
  double err = 0, scale = 0;
  for (const OutputDiff& o : c.outputs) {
    if (!o.compared) continue;
    err = std::max(err, o.max_abs);
    scale = std::max(scale, o.max_abs_reference);
  }
  return scale > 0 ? err / scale : err;
}

std::vector<std::string> formats_of(const OpSpec& op) {
  if (!op.has_attr("data_format")) return {"NHWC"};
  std::vector<std::string> f;
  for (auto v : op.attr("data_format")->allowed) f.emplace_back(v);
  return f;
}

int run(Args args) {
  std::string only_op;
  FlagReader("demo")
      .text("--op", only_op)
      .bad_argument([](const std::string& a) { return "demo takes only --op OP, got '" + a + "'"; })
      .read(args);
  if (!only_op.empty() && !find_op(only_op))
    fail("--op: unknown op '" + only_op + "'; expected one of " + op_names_joined());
  std::printf("%-38s %-6s %-9s %-9s %9s %9s %11s  %s\n", "op", "format", "mode", "dtype", "cpu ms",
              "ref ms", "rel error", "notes");
  int failures = 0;
  for (const OpSpec& op : op_catalog()) {
    if (!only_op.empty() && op.name != only_op) continue;
    const bool has_modes = op.has_modes();
    for (const std::string& fmt : formats_of(op))
      for (bool training : {true, false}) {
        if (!has_modes && !training) continue;
        for (DType dtype : op.cpu_types) {
          SampleSpec spec;
          spec.op = std::string(op.name);
          spec.format = *parse_data_format(fmt);
          spec.is_training = training;
          spec.dtype = dtype;
          spec.shape = fmt.size() == 5 ? Shape{2, 4, 6, 6, 16} : Shape{4, 8, 8, 16};
          const std::string mode = has_modes ? std::string(mode_name(training)) : "-";
          std::printf("%-38s %-6s %-9s %-9s ", std::string(op.name).c_str(), fmt.c_str(),
                      mode.c_str(), std::string(tf_dtype_name(dtype)).c_str());
          try {
            const Problem p = random_problem(spec);
            PipelineRequest request;
            request.backends = {kReferenceBackend, "cpu"};
            request.find_causes = false;
            const PipelineResult r = run_pipeline(p, request);
            int tf_rejects = 0;
            for (const Note& n : r.notes) tf_rejects += n.kind == NoteKind::TfWouldReject;
            std::printf("%9.3f %9.3f %11.2e  %s\n", r.run("cpu")->wall_seconds * 1e3,
                        r.run(kReferenceBackend)->wall_seconds * 1e3,
                        max_rel_error(r.diff.comparisons.front()),
                        tf_rejects ? "TensorFlow would reject" : "");
          } catch (const Error& e) {
            ++failures;
            std::printf("error: %s\n", e.what());
          }
        }
      }
  }
  return failures ? kExitInternal : kExitOk;
}

const CommandRegistration reg{
    {"demo", "run every op variant on a built-in sample problem and print a table",
     "usage: bnscope-cli demo [--op OP]\n\n"
     "Generates a seeded sample problem for every op x data_format x mode (training, inference) x "
     "dtype and runs "
     "it on\n"
     "the cpu and cpu-reference backends, printing times and the largest error of cpu relative to "
     "the\n"
     "float64 reference.",
     run}};

}  // namespace
}  // namespace bnscope::cli
