#include "backends/cpu_reference.h"

#include "backends/reference/reference_ops.h"
#include "engine/outputs.h"

namespace bnscope {

namespace reference {

void end_pass(const RunContext& ctx, int done, int total) {
  if (ctx.progress) ctx.progress(static_cast<double>(done) / total);
  ctx.check_cancel();
}

void store(Tensor& t, const std::vector<double>& values) {
  for (std::size_t i = 0; i < values.size(); ++i) t.set(static_cast<std::int64_t>(i), values[i]);
}

}  // namespace reference

namespace {

class CpuReference : public Backend {
 public:
  std::string_view name() const override { return "cpu-reference"; }
  std::string_view description() const override {
    return "float64 loops over the untransposed data; the oracle for every other backend";
  }
  void run(const Prepared& p, Result& result, const RunContext& ctx) override {
    allocate_outputs(p, result);
    const OpSpec& op = *p.op;
    if (op.family == OpFamily::GlobalNorm)
      op.is_grad ? reference::global_grad(p, result, ctx)
                 : reference::global_forward(p, result, ctx);
    else
      op.is_grad ? reference::fused_grad(p, result, ctx) : reference::fused_forward(p, result, ctx);
  }
};

}  // namespace

std::unique_ptr<Backend> make_cpu_reference_backend() {
  return std::make_unique<CpuReference>();
}

}  // namespace bnscope
