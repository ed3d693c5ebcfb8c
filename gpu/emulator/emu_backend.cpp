#include "emu_backend.h"

#include "host_runtime.h"
#include "kernel_phases.h"

namespace bnscope::gpu {

namespace {

class CudaEmuBackend : public Backend {
 public:
  std::string_view name() const override { return "cuda-emu"; }
  std::string_view description() const override {
    return "the cuda backend's kernels run on the CPU by a CUDA execution emulator (race and "
           "warp checks); results only, no GPU timings";
  }
  bool measures_speed() const override { return false; }
  std::string unsupported_reason(const Prepared& p) const override {
    return kernels_unsupported_reason(p);
  }
  void run(const Prepared& p, Result& result, const RunContext& ctx) override {
    ctx.check_cancel();
    run_kernels(host_runtime(), p, result, name());
  }
  std::vector<PhaseInfo> phase_plan(const Prepared& p, int) const override {
    return kernel_phases(p, plan_for(host_runtime(), p));
  }
};

}  // namespace

std::unique_ptr<Backend> make_cuda_emu_backend() {
  return std::make_unique<CudaEmuBackend>();
}

void run_emulated(const Prepared& p, Result& result, const PlanOverride& override_plan) {
  run_kernels(host_runtime(), p, result, "cuda-emu", override_plan);
}

}  // namespace bnscope::gpu
