#include "backends.h"

#include "backends/backend.h"
#ifdef BNSCOPE_HAVE_GPU
#include "register.h"
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
}

}  // namespace bnscope::app
