#include "phase_timer.h"

#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>

#include "cuda_check.h"

namespace bnscope::gpu {

PhaseTimer::PhaseTimer(std::string_view op, std::string_view backend, Stream s)
    : prefix_("bnscope/" + std::string(op) + "/" + std::string(backend) + "/"), stream_(s) {}

PhaseTimer::~PhaseTimer() {
  if (open_) nvtxRangePop();
  for (Phase& p : phases_) {
    if (p.start) cudaEventDestroy(p.start);
    if (p.stop) cudaEventDestroy(p.stop);
  }
}

void PhaseTimer::begin_phase(const std::string& phase) {
  if (open_) end();  // phases do not nest
  Phase p;
  p.name = phase;
  phases_.push_back(p);
  Phase& back = phases_.back();
  check_cuda(cudaEventCreate(&back.start), "cudaEventCreate");
  check_cuda(cudaEventCreate(&back.stop), "cudaEventCreate");
  nvtxRangePushA((prefix_ + phase).c_str());
  open_ = true;
  check_cuda(cudaEventRecord(back.start, stream_), "cudaEventRecord");
}

void PhaseTimer::end() {
  if (!open_) return;
  open_ = false;
  nvtxRangePop();
  check_cuda(cudaEventRecord(phases_.back().stop, stream_), "cudaEventRecord");
}

void PhaseTimer::finish(Result& result) {
  end();
  check_cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
  for (const Phase& p : phases_) {
    float ms = 0;
    check_cuda(cudaEventElapsedTime(&ms, p.start, p.stop), "cudaEventElapsedTime");
    result.timings.push_back({p.name, ms / 1000.0});
  }
}

}  // namespace bnscope::gpu
