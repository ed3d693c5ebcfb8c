// cpu: the fast multithreaded backend. Pass structures and why: passes.h and the files it names.

#include "backends/cpu/cpu_backend.h"

#include <chrono>
#include <mutex>

#include "backends/cpu/ops.h"
#include "engine/outputs.h"
#include "tensor/parallel.h"

namespace bnscope {

namespace {

class CpuBackend : public Backend {
 public:
  std::string_view name() const override { return "cpu"; }
  std::string_view description() const override {
    return "fast multithreaded CPU kernels, float32 accumulation (float64 for f64)";
  }
  void run(const Prepared& p, Result& result, const RunContext& ctx) override {
    const auto origin = std::chrono::steady_clock::now();  // pass start times count from here
    allocate_outputs(p, result);
    // One run at a time per backend: the pool is shared and its tasks split work statically.
    std::lock_guard lock(mutex_);
    cpu::Exec ex;
    ex.pool = &pool_;
    ex.scratch = &scratch_;
    ex.threads = resolve_threads(ctx.threads);
    ex.ctx = &ctx;
    ex.timings = &result.timings;
    ex.origin = origin;
    const OpSpec& op = *p.op;
    ex.nt = cpu::stream_output(result.outputs[0].tensor.nbytes(), op.is_grad ? 3 : 2);
    if (op.family == OpFamily::GlobalNorm)
      op.is_grad ? cpu::run_global_grad(ex, p, result) : cpu::run_global_forward(ex, p, result);
    else
      op.is_grad ? cpu::run_fused_grad(ex, p, result) : cpu::run_fused_forward(ex, p, result);
  }

 private:
  std::mutex mutex_;
  ThreadPool pool_;
  cpu::Scratch scratch_;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend() {
  return std::make_unique<CpuBackend>();
}

}  // namespace bnscope
