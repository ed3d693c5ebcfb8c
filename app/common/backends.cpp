#include "backends.h"

#include <algorithm>

#include "backends/backend.h"
#ifdef BNSCOPE_HAVE_GPU
#include "register.h"
#endif
#ifdef BNSCOPE_HAVE_CUDA_EMU
#include "emu_backend.h"
#endif

namespace bnscope::app {

std::string gpu_not_built_reason() {
#ifdef BNSCOPE_HAVE_GPU
  return {};
#else
  return "not built: " BNSCOPE_GPU_MISSING;
#endif
}

void register_all_backends() {
  static bool done = false;
  if (done) return;
  done = true;
  BackendRegistry& r = BackendRegistry::instance();
#ifdef BNSCOPE_HAVE_GPU
  gpu::register_backends(r);
#else
  for (const char* name : {"cuda", "cudnn"})
    r.add(make_unavailable_backend(
        name, name == std::string("cuda") ? "hand-written CUDA kernels" : "cuDNN 9",
        gpu_not_built_reason()));
#endif
#ifdef BNSCOPE_HAVE_CUDA_EMU
  r.add(gpu::make_cuda_emu_backend());
#else
  r.add(make_unavailable_backend(
      "cuda-emu",
      "the cuda backend's kernels run on the CPU by a CUDA execution emulator; results only, no "
      "GPU timings",
      "not built: CUDA's headers (cuda_fp16.h) were not found when bnscope was configured"));
#endif
}

BackendState describe_backend(const Backend& b) {
  return {std::string(b.name()), std::string(b.description()), b.unavailable_reason(),
          b.code_path()};
}

std::vector<BackendState> backend_states() {
  register_all_backends();
  std::vector<BackendState> states;
  for (const Backend* b : BackendRegistry::instance().all()) states.push_back(describe_backend(*b));
  return states;
}

std::string backends_help() {
  std::string s = "backends:\n";
  for (const BackendState& b : backend_states()) {
    std::string line = "  " + b.name;
    line.resize(std::max<std::size_t>(line.size() + 1, 16), ' ');
    s += line + b.description;
    if (!b.unavailable.empty())
      s += "\n" + std::string(16, ' ') + "(" + b.unavailable + ")";
    else if (!b.code_path.empty())
      s += "\n" + std::string(16, ' ') + "here: " + b.code_path;
    s += "\n";
  }
  return s;
}

}  // namespace bnscope::app
