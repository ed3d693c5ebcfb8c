// bnscope-cli bench: sweeps ops x formats x modes x dtypes x shapes on one or more backends,
// checks each case against cpu-reference, and tabulates time, GB/s and the fraction of the copy
// bandwidth measured at the start of the same run.

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>

#include "analysis/half_sums.h"
#include "analysis/pipeline.h"
#include "backends.h"
#include "command.h"
#include "device_copy.h"
#include "engine/engine.h"
#include "flag_reader.h"
#include "io/atomic_file.h"
#include "problem_setup.h"
#include "profile/copy_bandwidth.h"
#include "profile/profiler.h"
#include "report/writers.h"
#include "tensor/error.h"

namespace bnscope::cli {

namespace {

// The ResNet-50 batch-norm layers of performance spec 4.4 at batch n (N=32 there).
std::vector<Shape> resnet50_shapes(std::int64_t n) {
  return {{n, 112, 112, 64}, {n, 56, 56, 64},   {n, 56, 56, 256},
          {n, 28, 28, 512},  {n, 14, 14, 1024}, {n, 7, 7, 2048}};
}

std::vector<Shape> read_shapes(const std::string& spec) {
  if (spec == "resnet50") return resnet50_shapes(32);
  if (spec.rfind("resnet50:", 0) == 0)
    return resnet50_shapes(parse_int_flag("--shapes resnet50:N", spec.substr(9), 1, 4096));
  std::ifstream f(spec);
  if (!f) {
    std::vector<Shape> shapes;  // SHAPE[;SHAPE...] inline
    std::size_t start = 0;
    while (start <= spec.size()) {
      const auto end = spec.find(';', start);
      shapes.push_back(parse_shape_flag("--shapes", spec.substr(start, end - start)));
      if (end == std::string::npos) break;
      start = end + 1;
    }
    return shapes;
  }
  std::vector<Shape> shapes;
  std::string line;
  while (std::getline(f, line)) {
    if (auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    shapes.push_back(parse_shape_flag("--shapes " + spec, line));
  }
  if (shapes.empty()) fail("--shapes " + spec + ": no shape in the file (one N,H,W,C a line)");
  return shapes;
}

// Every timed case is first checked: a fast wrong answer is not a result. One pipeline run per
// problem: cpu-reference once, every backend compared with it, on the threads the timing uses
// (--threads caps the whole command, not only what it times).
class ReferenceCheck {
 public:
  // The verdict of a backend that takes TensorFlow's half sums (half_sums.h) whose x-shaped
  // output agrees and whose per-channel outputs alone differ from the exact reference.
  static constexpr const char* kHalfSums = "ok (half)";

  ReferenceCheck(const Problem& problem, const std::vector<std::string>& backends, bool enabled,
                 int threads)
      : problem_(problem) {
    if (!enabled) return;
    PipelineRequest request;
    request.backends = backends;
    request.reference = kReferenceBackend;
    request.find_causes = false;
    RunContext ctx;
    ctx.threads = threads;
    result_ = run_pipeline(problem, request, ctx);
  }

  std::string operator()(const std::string& backend) const {
    if (backend == kReferenceBackend) return "reference";
    if (!result_) return "skipped";
    for (const Comparison& c : result_->diff.comparisons) {
      if (c.candidate != backend) continue;
      if (c.passed) return "ok";
      const bool only_per_channel =
          std::all_of(c.outputs.begin(), c.outputs.end(),
                      [](const OutputDiff& o) { return o.passed || o.shape.size() == 1; });
      return only_per_channel && sums_in_half(problem_, backend) ? kHalfSums : "MISMATCH";
    }
    return "skipped";
  }

 private:
  const Problem& problem_;
  std::optional<PipelineResult> result_;
};

int run(Args args) {
  app::ProblemArgs pa = app::parse_problem_args(args);
  std::vector<std::string> backends{"cpu"}, ops{"FusedBatchNormGradV3"}, formats{"NHWC", "NCHW"},
      modes{std::string(kTrainingMode), std::string(kInferenceMode)}, dtypes{"float32"};
  std::string shapes_spec = "resnet50:4", json;
  ProfileOptions options;
  options.reps = 5;
  options.warmup = 1;
  options.measure_copy = false;  // measured once for the whole sweep below
  bool check = true;
  FlagReader("bench")
      .list("--backends", backends)
      .list("--ops", ops)
      .list("--formats", formats)
      .list("--modes", modes)
      .list("--dtypes", dtypes)
      .text("--shapes", shapes_spec)
      .integer("--reps", options.reps, 1, 100000)
      .integer("--warmup", options.warmup, 0, 1000)
      .integer("--threads", options.threads, 0, 1024)
      .number("--peak-gbps", options.device_peak_gbps)
      .text("--json", json)
      .set("--no-check", check, false)
      .read(pa.rest);
  if (pa.op_given && !ops.empty() && ops.front() == "FusedBatchNormGradV3") ops = {pa.problem.op};
  for (const std::string& op : ops)
    if (!find_op(op)) fail("--ops: unknown op '" + op + "'; expected one of " + op_names_joined());
  for (const std::string& f : formats)
    if (!parse_data_format(f))
      fail("--formats: unknown format '" + f + "' (NHWC, NCHW, NDHWC, NCDHW)");
  for (const std::string& m : modes)
    if (!parse_mode(m)) fail("--modes expects training and/or inference, got '" + m + "'");
  std::vector<DType> types;
  for (const std::string& t : dtypes) {
    auto d = parse_dtype(t);
    if (!d) fail("--dtypes: unknown dtype '" + t + "'");
    types.push_back(*d);
  }
  const std::vector<Shape> shapes = read_shapes(shapes_spec);
  if (!json.empty()) check_output_file(json, "--json");  // before the work, not after
  for (const std::string& op_name : ops)
    for (const Shape& shape : shapes)
      for (DType t : types) {
        SampleSpec spec;
        spec.op = op_name;
        spec.shape = shape;
        spec.dtype = t;
        check_sample_runs(spec);  // every case before the first is timed
      }
  app::register_all_backends();
  for (const std::string& b : backends) backend_or_throw(b);

  const double copy_gbps = measure_copy_bandwidth(options.threads, std::size_t{256} << 20) / 1e9;
  std::printf("copy bandwidth (same run, %s threads, 256 MiB): %.2f GB/s\n",
              options.threads ? std::to_string(options.threads).c_str() : "all", copy_gbps);
  // The copy again right after each cpu case (%adj): a sweep takes minutes, and on a shared host
  // the bandwidth the probe at its start saw can be another minute's. Made at the first such case.
  std::optional<CopyProbe> after;
  std::printf("%-22s %-13s %-18s %-8s %-5s %-9s %-10s %10s %10s %10s %8s %7s %s\n", "op", "backend",
              "shape", "dtype", "fmt", "mode", "check", "median ms", "min ms", "max ms", "GB/s",
              "%copy", "%adj");
  Report report = new_report("bnscope bench");
  int mismatches = 0, half_sums = 0;
  for (const std::string& op_name : ops) {
    const OpSpec& op = *find_op(op_name);
    for (const Shape& shape : shapes)
      for (DType t : types)
        for (const std::string& fmt : formats)
          for (const std::string& mode : modes) {
            const bool one_layout = !op.has_attr("data_format"), modes_apply = op.has_modes();
            if ((one_layout && fmt != formats.front()) || (!modes_apply && mode != modes.front()))
              continue;  // one layout, no mode: run once
            SampleSpec spec;
            spec.op = op_name;
            spec.shape = shape;
            spec.dtype = t;
            spec.format = one_layout ? DataFormat::NHWC : *parse_data_format(fmt);
            // A 5-D shape runs in the 3-D format of the same layout, with TensorFlow's name.
            if (shape.size() == 5 && !one_layout)
              spec.format = is_channels_last(spec.format) ? DataFormat::NDHWC : DataFormat::NCDHW;
            spec.is_training = *parse_mode(mode);
            const Problem problem = random_problem(spec);
            const ReferenceCheck reference(problem, backends, check, options.threads);
            for (const std::string& b : backends) {
              const std::string verdict = reference(b);
              mismatches += verdict == "MISMATCH";
              half_sums += verdict == ReferenceCheck::kHalfSums;
              ProfileOptions o = options;
              o.device_copy_probe = app::device_copy_probe_for(b);  // GPU backends' roofline
              Profile p = profile_problem(problem, b, o);
              if (p.roofline_gbps <= 0 && copy_gbps > 0) {
                p.roofline_gbps = copy_gbps;
                p.roofline_source = "copy bandwidth measured at the start of this run";
                p.roofline_fraction = p.achieved_gbps / copy_gbps;
              }
              if (p.measures_speed && p.backend.rfind("cpu", 0) == 0) {
                if (!after) after.emplace(options.threads, std::size_t{128} << 20);
                p.copy_after_gbps = after->measure() / 1e9;
              }
              const double adj = p.copy_after_gbps > 0 ? p.achieved_gbps / p.copy_after_gbps : 0;
              std::printf(
                  "%-22s %-13s %-18s %-8s %-5s %-9s %-10s %10.3f %10.3f %10.3f %8.2f %6.1f%% %s\n",
                  op_name.c_str(), p.backend.c_str(), shape_str(p.shape).c_str(),
                  std::string(dtype_name(t)).c_str(),
                  std::string(data_format_name(spec.format)).c_str(),
                  modes_apply ? mode.c_str() : "-", verdict.substr(0, 10).c_str(),
                  p.wall.median * 1e3, p.wall.min * 1e3, p.wall.max * 1e3, p.achieved_gbps,
                  100 * p.roofline_fraction,
                  adj > 0 ? (std::to_string(static_cast<int>(100 * adj + 0.5)) + "%").c_str()
                          : "-");
              std::fflush(stdout);
              report.profiles.push_back(std::move(p));
            }
          }
  }
  add_devices(report);
  if (!json.empty())
    write_file_atomic_stream(json, [&](std::ostream& os) { write_report_json(report, os); });
  std::printf("check: outputs vs cpu-reference with the default tolerances%s\n",
              check ? "" : " (skipped: --no-check)");
  if (half_sums)
    std::printf(
        "%s: dx agrees; the per-channel outputs are summed in half step by step, as TensorFlow's "
        "CPU kernel sums them, so they differ from the exact reference by design (bnscope-cli "
        "diff shows by how much)\n",
        ReferenceCheck::kHalfSums);
  if (mismatches) std::printf("%d case(s) disagree with cpu-reference\n", mismatches);
  return mismatches ? kExitMismatch : kExitOk;
}

const CommandRegistration reg{
    {"bench", "sweep ops x formats x modes x dtypes x shapes: time, GB/s, fraction of copy BW",
     "usage: bnscope-cli bench [--backends cpu,...] [--shapes resnet50[:N]|FILE|N,H,W,C;...]\n"
     "                         [--ops OP,...] [--formats NHWC,NCHW] [--modes training,inference]\n"
     "                         [--dtypes float32,...] [--reps N] [--warmup N] [--threads N]\n"
     "                         [--peak-gbps X] [--json FILE] [--no-check]\n\n"
     "Defaults: FusedBatchNormGradV3, float32, both formats, both modes, the six ResNet-50\n"
     "batch-norm shapes at N=4 (resnet50 is N=32, resnet50:N any batch), 5 reps after 1\n"
     "warm-up, on cpu. Shapes are logical N,H,W,C; a FILE holds one shape a line. Each case\n"
     "is first checked against cpu-reference (--no-check skips that, for quick sweeps of\n"
     "large shapes). GB/s counts the minimum traffic (each input read once, each output\n"
     "written once); %copy divides it by the copy bandwidth measured at the start of the run\n"
     "with the same thread count, %adj (cpu backends) by a copy probed right after the case\n"
     "(a shared host's bandwidth moves within minutes). Exit status 1 when a check fails.",
     run}};

}  // namespace

}  // namespace bnscope::cli
