#include "gpu_counters.h"

#include "counters.h"
#ifdef BNSCOPE_HAVE_GPU
#include "device_query.h"
#endif

namespace bnscope::app {

void collect_counters(Profile& p) {
  gpu::CounterSetting s;
  s.backend = p.backend;
#ifdef BNSCOPE_HAVE_GPU
  s.device_problem = gpu::device_status().problem;
#else
  s.device_problem = "bnscope was built without the CUDA toolkit";
#endif
  // No CUPTI range-profiler collection is linked into this build (cupti_built stays false), so
  // every backend gets its reason; none is ever given made-up counters.
  p.counters.kernels.clear();
  p.counters.unavailable = gpu::counters_unavailable_reason(s);
}

}  // namespace bnscope::app
