#include "device_copy.h"

#ifdef BNSCOPE_HAVE_GPU
#include "cuda_runtime_impl.h"
#include "device_query.h"
#endif
#ifdef BNSCOPE_HAVE_CUDA_EMU
#include "host_runtime.h"
#endif
#if defined(BNSCOPE_HAVE_GPU) || defined(BNSCOPE_HAVE_CUDA_EMU)
#include "copy_probe.h"
#endif

namespace bnscope::app {

std::function<DeviceCopy(std::size_t)> device_copy_probe_for(std::string_view backend) {
#ifdef BNSCOPE_HAVE_GPU
  if ((backend == "cuda" || backend == "cudnn") && gpu::device_status().problem.empty())
    return [](std::size_t bytes) { return gpu::measure_device_copy(gpu::cuda_runtime(), bytes); };
#endif
#ifdef BNSCOPE_HAVE_CUDA_EMU
  if (backend == "cuda-emu")
    return [](std::size_t bytes) { return gpu::measure_device_copy(gpu::host_runtime(), bytes); };
#endif
  (void)backend;
  return {};
}

}  // namespace bnscope::app
