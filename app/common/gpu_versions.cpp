#include "gpu_versions.h"

#include "backends.h"
#include "device_info.h"
#ifdef BNSCOPE_HAVE_GPU
#include "device_query.h"
#include "library_versions.h"
#endif

namespace bnscope::app {

GpuVersions gpu_versions() {
  GpuVersions v;
#ifdef BNSCOPE_HAVE_GPU
  const gpu::LibraryVersions lib = gpu::library_versions();
  v.cuda_runtime =
      gpu::cuda_version_text(lib.runtime) +
      (lib.driver ? " (the driver runs CUDA " + gpu::cuda_version_text(lib.driver) + ")"
                  : " (no NVIDIA driver is loaded)");
  v.cudnn = gpu::cudnn_version_text(lib.cudnn);
  // A library of another version than the headers: the cudnn backend refuses a major mismatch.
  if (lib.cudnn != lib.cudnn_headers)
    v.cudnn += " (bnscope was built with " + gpu::cudnn_version_text(lib.cudnn_headers) + ")";
  const gpu::DeviceStatus& s = gpu::device_status();
  if (s.problem.empty())
    v.device = s.info.summary();
  else
    v.device = s.info.name.empty() ? s.problem : s.info.name + ": " + s.problem;
#else
  v.cuda_runtime = v.cudnn = v.device = gpu_not_built_reason();
#endif
  return v;
}

}  // namespace bnscope::app
