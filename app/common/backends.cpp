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
        "not built: no CUDA toolkit was found when bnscope was configured"));
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

std::string backends_help() {
  register_all_backends();
  std::string s = "backends:\n";
  for (const Backend* b : BackendRegistry::instance().all()) {
    std::string line = "  " + std::string(b->name());
    line.resize(std::max<std::size_t>(line.size() + 1, 16), ' ');
    s += line + std::string(b->description());
    if (const std::string why = b->unavailable_reason(); !why.empty())
      s += "\n" + std::string(16, ' ') + "(" + why + ")";
    else if (const std::string path = b->code_path(); !path.empty())
      s += "\n" + std::string(16, ' ') + "here: " + path;
    s += "\n";
  }
  return s;
}

}  // namespace bnscope::app
