// bnscope-cli selftest: the GPU backends (and cuda-emu, their kernels on the CPU) against
// cpu-reference over the selftest sweep (every op x format x mode x dtype on the shapes of
// TensorFlow's tests), as a pass/fail table.

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "backends.h"
#include "backends/backend.h"
#include "command.h"
#include "conformance_command.h"
#include "flag_reader.h"
#include "selftest.h"
#include "tensor/error.h"
#ifdef BNSCOPE_HAVE_GPU
#include "device_query.h"
#endif

namespace bnscope::cli {

namespace {

struct Options {
  std::vector<std::string> backends{"cuda", "cudnn", "cuda-emu"};
  std::string filter;  // substring of the case label
  bool verbose = false;
};

Options parse(Args args) {
  Options o;
  FlagReader("selftest")
      .value("--backend",
             [&](const std::string& b) {
               if (b == "all")
                 o.backends = {"cuda", "cudnn", "cuda-emu"};
               else if (b == "cuda" || b == "cudnn" || b == "cuda-emu")
                 o.backends = {b};
               else
                 fail("--backend: expected cuda, cudnn, cuda-emu, all or a plugin's name, got '" +
                      b + "'");
             })
      .text("--filter", o.filter)
      .set("--verbose", o.verbose)
      .set("-v", o.verbose)
      .bad_argument([](const std::string& a) {
        return "selftest: unexpected argument '" + a + "' (see bnscope-cli selftest --help)";
      })
      .read(args);
  return o;
}

// Any other registered backend (a kernel plugin's) gets the conformance run.
bool names_other_backend(Args args) {
  for (std::size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == "--backend") {
      const std::string& b = args[i + 1];
      if (b == "all" || b == "cuda" || b == "cudnn" || b == "cuda-emu") return false;
      app::register_all_backends();
      return BackendRegistry::instance().find(b) != nullptr;
    }
  return false;
}

int run(Args args) {
  if (names_other_backend(args)) return run_conformance_command("selftest", args);
  const Options opt = parse(args);
  // A filter that matches nothing would pass having tested nothing.
  const std::vector<gpu::SelftestCase> cases = gpu::selftest_cases();
  if (!opt.filter.empty() && std::none_of(cases.begin(), cases.end(), [&](const auto& c) {
        return c.label.find(opt.filter) != std::string::npos;
      }))
    fail("no case matches --filter " + clip_for_message(opt.filter) +
         " (labels look like 'FusedBatchNormGradV3 NHWC training inv_std float32 [5,7,11,4]')");
  app::register_all_backends();
  BackendRegistry& registry = BackendRegistry::instance();
  std::vector<Backend*> runnable;
  for (const std::string& name : opt.backends) {
    Backend* b = registry.find(name);
    const std::string why = b ? b->unavailable_reason() : "not registered";
    if (why.empty())
      runnable.push_back(b);
    else
      std::fprintf(stderr, "bnscope-cli selftest: backend %s is not available: %s\n", name.c_str(),
                   why.c_str());
  }
  if (runnable.empty()) return kExitUnavailable;
  Backend* reference = registry.find("cpu-reference");
  if (!reference) throw Error(ErrorCode::Internal, "cpu-reference is not registered");
#ifdef BNSCOPE_HAVE_GPU
  const gpu::DeviceStatus& device = gpu::device_status();
  std::printf("device: %s\n\n",
              device.problem.empty() ? device.info.summary().c_str() : device.problem.c_str());
#endif
  std::printf("%-8s %-11s %9s  %s\n", "backend", "status", "worst", "case");

  int counts[4] = {0, 0, 0, 0};
  for (const gpu::SelftestCase& c : cases) {
    if (!opt.filter.empty() && c.label.find(opt.filter) == std::string::npos) continue;
    for (Backend* b : runnable) {
      const gpu::CaseOutcome o = gpu::run_selftest_case(c, *b, *reference);
      ++counts[static_cast<int>(o.status)];
      std::printf("%-8s %-11s %9.3g  %s", std::string(b->name()).c_str(),
                  std::string(gpu::case_status_name(o.status)).c_str(), o.worst, c.label.c_str());
      const bool show = o.status != gpu::CaseStatus::Pass || opt.verbose;
      if (show && !o.detail.empty()) std::printf("\n%21s%s", "", o.detail.c_str());
      std::printf("\n");
      std::fflush(stdout);
    }
  }
  std::printf(
      "\n%d passed, %d failed, %d unsupported, %d errors ('worst' is the largest error "
      "over its tolerance; above 1 fails)\n",
      counts[0], counts[1], counts[2], counts[3]);
  return counts[1] + counts[3] > 0 ? kExitMismatch : kExitOk;
}

const CommandRegistration reg{
    {"selftest", "compare the GPU backends with cpu-reference over every op, format and dtype",
     "usage: bnscope-cli selftest [--backend cuda|cudnn|cuda-emu|all] [--filter TEXT] "
     "[--verbose]\n\n"
     "Runs every op of the catalog x data format x training/inference x dtype on the shapes of\n"
     "TensorFlow's own tests, on the GPU backend(s) and on cpu-reference, and prints one\n"
     "pass/fail line per case with the worst error relative to the dtype's tolerance.\n"
     "  --backend B   cuda, cudnn, cuda-emu or all (default all); cuda-emu runs the cuda\n"
     "                backend's kernels on the CPU (no GPU needed; results, no timings);\n"
     "                any other backend (a --plugin's name) gets `conformance --backend B`\n"
     "  --filter T    only cases whose label contains T (e.g. 'GradV3 NCHW', 'bfloat16')\n"
     "  --verbose     show the worst element of passing cases too\n"
     "Exit status: 0 all passed, 1 a case failed, 2 no case matches --filter, 3 no usable\n"
     "device or not built.",
     run}};

}  // namespace
}  // namespace bnscope::cli
