// cpu: the fast multithreaded backend. Pass structures and why: passes.h and the files it names.

#include "backends/cpu/cpu_backend.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

#include "backends/cpu/dx_stores.h"
#include "backends/cpu/host_caches.h"
#include "backends/cpu/ops.h"
#include "backends/cpu/pass_plan.h"
#include "backends/cpu/simd.h"
#include "backends/cpu/walk_trial.h"
#include "engine/outputs.h"
#include "tensor/error.h"
#include "tensor/parallel.h"

namespace bnscope {

namespace {

std::string vector_target() {
  try {
    const std::string name = cpu::simd::target_name();  // Highway calls AVX-512 "AVX3"
    return (name.rfind("AVX3", 0) == 0 ? "AVX-512" : name) + " vectors";
  } catch (const Error&) {  // BNSCOPE_SIMD set wrong: the first run says how
    return "BNSCOPE_SIMD not understood";
  }
}

class CpuBackend : public Backend {
 public:
  std::string_view name() const override { return "cpu"; }
  std::string_view description() const override {
    // With the vector target the kernels dispatch to: the same backend is a different code path,
    // and runs at a different speed, on an AVX2 host than on an AVX-512 one.
    static const std::string text = "fast multithreaded CPU kernels (" + vector_target() +
                                    "), float32 accumulation (float64 for f64)";
    return text;
  }
  void run(const Prepared& p, Result& result, const RunContext& ctx) override {
    const auto origin = std::chrono::steady_clock::now();  // pass start times count from here
    cpu::simd::apply_target_cap();
    allocate_outputs(p, result);
    // One run at a time per backend: the pool and its claims are shared by all of a run's passes.
    std::lock_guard lock(mutex_);
    cpu::Exec ex;
    ex.pool = &pool_;
    ex.scratch = &scratch_;
    ex.threads = resolve_threads(ctx.threads);
    ex.ctx = &ctx;
    ex.timings = &result.timings;
    ex.origin = origin;
    const OpSpec& op = *p.op;
    const std::uint64_t trials_before = cpu::trial_passes();
    auto run_op = [&](bool streamed) {
      ex.nt = streamed;
      if (op.family == OpFamily::GlobalNorm)
        op.is_grad ? cpu::run_global_grad(ex, p, result) : cpu::run_global_forward(ex, p, result);
      else
        op.is_grad ? cpu::run_fused_grad(ex, p, result) : cpu::run_fused_forward(ex, p, result);
    };
    // x, dy and dx for the grads; x and y for the forward ops.
    const std::size_t bytes = result.outputs[0].tensor.nbytes() * (op.is_grad ? 3 : 2);
    const cpu::HostCaches& caches = cpu::host_caches();
    if (op.is_grad)
      cpu::with_dx_stores(
          cpu::dx_stores(caches, bytes, ex.threads),
          cpu::store_key(bytes, p.channels(), !p.channels_last, cpu::simd::elem_of(p.t)),
          op.family == OpFamily::Fused && p.is_training, run_op);
    else
      run_op(cpu::output_streamed(caches, bytes));
    last_run_calibrating_ = cpu::trial_passes() != trials_before;
  }
  bool last_run_calibrating() const override { return last_run_calibrating_; }
  std::string code_path() const override { return cpu_code_path(); }
  std::vector<PhaseInfo> phase_plan(const Prepared& p, int threads) const override {
    std::vector<PhaseInfo> plan;
    for (const std::string& pass : cpu_pass_plan(p, threads)) {
      // The write pass and the one-sweep passes in shades of their own beside the reducing ones.
      const int shade = pass == cpu::kPassWrite                               ? 1
                        : pass == cpu::kPassPlanes || pass == cpu::kPassFused ? 2
                                                                              : 0;
      plan.push_back(
          {pass, std::string(cpu_pass_description(pass)), cpu_pass_tensors(pass, *p.op), shade});
    }
    return plan;
  }
  void check_environment() const override { check_cpu_backend_variables(); }

 private:
  std::mutex mutex_;
  std::atomic<bool> last_run_calibrating_{false};
  ThreadPool pool_;
  cpu::Scratch scratch_;
};

}  // namespace

std::string cpu_code_path() {
  try {
    return vector_target() + "; " + cpu::describe(cpu::host_caches());
  } catch (const Error& e) {  // BNSCOPE_CACHE_DIR set wrong: the first run says how
    return vector_target() + "; " + e.what();
  }
}

void check_cpu_backend_variables() {
  cpu::simd::apply_target_cap();
  cpu::host_caches();
}

std::unique_ptr<Backend> make_cpu_backend() {
  return std::make_unique<CpuBackend>();
}

}  // namespace bnscope
