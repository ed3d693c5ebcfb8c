#include "cuda_backend.h"

#include "cuda_runtime_impl.h"
#include "device_query.h"
#include "kernel_phases.h"
#include "kernel_runner.h"

namespace bnscope::gpu {

namespace {

class CudaBackend : public Backend {
 public:
  std::string_view name() const override { return "cuda"; }
  std::string_view description() const override {
    return "bnscope's CUDA kernels: planner-chosen one-CTA-per-channel-group or split-M "
           "reductions, float accumulation";
  }
  std::string unavailable_reason() const override { return device_status().problem; }
  std::string device() const override { return usable_device_summary(); }
  std::string unsupported_reason(const Prepared& p) const override {
    return cuda_unsupported_reason(p);
  }
  void run(const Prepared& p, Result& result, const RunContext& ctx) override {
    ctx.check_cancel();
    run_cuda_kernels(p, result, name());
  }
  std::vector<PhaseInfo> phase_plan(const Prepared& p, int) const override {
    if (!unavailable_reason().empty()) return {};  // no device to plan for
    return kernel_phases(p, plan_for(cuda_runtime(), p));
  }
};

}  // namespace

std::string cuda_unsupported_reason(const Prepared& p) {
  return kernels_unsupported_reason(p);
}

void run_cuda_kernels(const Prepared& p, Result& result, std::string_view backend_name) {
  run_kernels(cuda_runtime(), p, result, backend_name);
}

std::unique_ptr<Backend> make_cuda_backend() {
  return std::make_unique<CudaBackend>();
}

}  // namespace bnscope::gpu
