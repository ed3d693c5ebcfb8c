// cpu: the fast multithreaded backend. Pass structures and why: passes.h and the files it names.

#include "backends/cpu/cpu_backend.h"

#include <chrono>
#include <cstdint>
#include <mutex>
#include <new>
#include <optional>
#include <string>
#include <utility>

#include "backends/cpu/host_caches.h"
#include "backends/cpu/passes.h"
#include "backends/cpu/planner.h"
#include "backends/cpu/simd.h"
#include "ops/outputs.h"
#include "tensor/error.h"
#include "tensor/parallel.h"
#include "tensor/thread_pool.h"

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
  // host: the figures to plan from; nullopt, this host's (planner.h: this_host), read at the
  // first run, after BNSCOPE_SIMD is applied.
  explicit CpuBackend(std::optional<cpu::Host> host) : host_(std::move(host)) {}
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
    ex.pool = &shared_pool();
    ex.scratch = &scratch_;
    ex.threads = resolve_threads(ctx.threads);
    if (!host_) host_ = cpu::this_host();
    ex.host = *host_;
    ex.ctx = &ctx;
    ex.timings = &result.timings;
    ex.origin = origin;
    const OpSpec& op = *p.op;
    // x, dy and dx for the grads; x and y for the forward ops.
    const std::size_t bytes = result.outputs[0].tensor.nbytes() * (op.is_grad ? 3 : 2);
    ex.nt = cpu::stream_output(ex.host, bytes, dtype_size(p.t), ex.threads, op.is_grad);
    try {
      if (op.family == OpFamily::GlobalNorm)
        op.is_grad ? cpu::run_global_grad(ex, p, result) : cpu::run_global_forward(ex, p, result);
      else
        op.is_grad ? cpu::run_fused_grad(ex, p, result) : cpu::run_fused_forward(ex, p, result);
    } catch (const Error&) {
      throw;
    } catch (const std::bad_alloc&) {
      throw Error(ErrorCode::ResourceExhausted, "cpu backend: out of memory in a worker thread");
    } catch (const std::exception& e) {
      throw Error(ErrorCode::Internal,
                  std::string("cpu backend: worker thread failed: ") + e.what());
    }
  }
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
  std::optional<cpu::Host> host_;
  cpu::Scratch scratch_;
};

}  // namespace

std::string_view cpu_pass_description(std::string_view phase) {
  using namespace cpu;
  const std::pair<const char*, std::string_view> descriptions[] = {
      {kPassMean, "reduce pass: sum of x per channel, for the batch mean"},
      {kPassVariance,
       "reduce pass: sums of (x - mean) and its square per channel, for the variance"},
      {kPassReduce, "reduce pass: sums of dy and dy*(x - mean) per channel (reads x and dy)"},
      {kPassWrite, "write pass: each output element from per-channel coefficients"},
      {kPassPlanes,
       "one sweep, channel plane by plane: reduce a plane, then write its dx while it is "
       "cache-hot"},
      {kPassFused, "one sweep: the per-channel sums and dx together (dx needs no reduction)"},
  };
  for (const auto& [name, text] : descriptions)
    if (phase == name) return text;
  return {};
}

int cpu_pass_tensors(std::string_view phase, const OpSpec& op) {
  using namespace cpu;
  if (phase == kPassMean || phase == kPassVariance) return 1;  // x
  if (phase == kPassReduce) return 2;                          // x, dy
  if (phase == kPassWrite) return op.is_grad ? 3 : 2;          // x (dy) read, dx (y) written
  if (phase == kPassPlanes || phase == kPassFused) return 3;   // x, dy, dx
  return 0;
}

std::vector<std::string> cpu_pass_plan(const Prepared& p, int threads) {
  if (p.empty()) return {};  // the engine answers empty inputs without running the backend
  return cpu::pass_names(cpu::pass_structure(cpu::this_host(), p, resolve_threads(threads)));
}

std::string cpu_code_path() {
  return vector_target() + "; " + cpu::describe(cpu::host_caches());
}

void check_cpu_backend_variables() {
  cpu::simd::apply_target_cap();
}

std::unique_ptr<Backend> make_cpu_backend() {
  return std::make_unique<CpuBackend>(std::nullopt);
}

std::unique_ptr<Backend> make_cpu_backend(const cpu::Host& host) {
  return std::make_unique<CpuBackend>(host);
}

}  // namespace bnscope
