#include "cuda_backend.h"

#include <cmath>

#include "channel_io.h"
#include "device_memory.h"
#include "device_query.h"
#include "engine/outputs.h"
#include "phase_timer.h"

namespace bnscope::gpu {

namespace {

bool acc_is_double(const Prepared& p) {
  return p.t == DType::F64;
}

std::size_t acc_bytes(const Prepared& p) {
  return acc_is_double(p) ? sizeof(double) : sizeof(float);
}

View view_of(const Prepared& p) {
  return {p.view.outer, p.view.channels, p.view.inner};
}

Plan plan_for(const Prepared& p, Work work) {
  ShapeIn s;
  s.outer = p.view.outer;
  s.channels = p.view.channels;
  s.inner = p.view.inner;
  s.elem_bytes = static_cast<int>(dtype_size(p.t));
  s.acc_bytes = static_cast<int>(acc_bytes(p));
  s.work = work;
  return plan_launch(s, device_status().info.limits());
}

void run_grad(const Prepared& p, Result& r, std::string_view backend) {
  const bool global = p.op->family == OpFamily::GlobalNorm;
  const bool dbl = acc_is_double(p);
  const auto c = static_cast<std::size_t>(p.channels());
  const Plan plan = plan_for(p, p.is_training && !global ? Work::GradTraining : Work::GradDirect);
  CudaStream stream;
  const Stream s = stream.get();
  PhaseTimer timer(p.op->name, backend, s);

  GradLaunch g;
  g.epsilon = p.epsilon;
  if (global)
    g.kind = p.scale_after_normalization ? GradKind::GlobalScaled : GradKind::GlobalUnscaled;
  else
    g.kind = p.is_training ? GradKind::Training : GradKind::Freeze;
  g.var_is_inv_std = !global && p.reserve_is_inv_std();
  DeviceBuffer x, dy, mean, var, scale;
  {
    PhaseScope phase(timer, "upload");
    x = upload(p.in(global ? "t" : "x"), s);
    dy = upload(p.in(global ? "backprop" : "y_backprop"), s);
    mean = upload_channel_input(p, global ? "m" : "reserve_space_1", dbl, s);
    var = upload_channel_input(p, global ? "v" : "reserve_space_2", dbl, s);
    scale = upload_channel_input(p, global ? "gamma" : "scale", dbl, s);
  }
  OutputTensor& dx_out = r.outputs[0];
  DeviceBuffer dx(dx_out.tensor.nbytes()),
      workspace(static_cast<std::size_t>(plan.workspace_bytes)), coef(4 * c * acc_bytes(p));
  ChannelResults results(c, dbl);
  g.x = x.get();
  g.dy = dy.get();
  g.dx = dx.get();
  g.mean = mean.get();
  g.var = var.get();
  g.scale = scale.get();
  g.out_scale = results.make(global ? "dg" : "scale_backprop");
  g.out_offset = results.make(global ? "db" : "offset_backprop");
  g.out_dm = global ? results.make("dm") : nullptr;
  g.out_dv = global ? results.make("dv") : nullptr;
  g.workspace = workspace.get();
  g.coef = coef.get();
  launch_grad(p.t, plan, view_of(p), g, s, timer);
  {
    PhaseScope phase(timer, "download");
    download(dx, dx_out.tensor, s);
    results.download(s);
  }
  timer.finish(r);
  results.store(r);
}

void run_forward_training(const Prepared& p, Result& r, std::string_view backend) {
  const auto c = static_cast<std::size_t>(p.channels());
  const Plan plan = plan_for(p, Work::Moments);
  CudaStream stream;
  const Stream s = stream.get();
  PhaseTimer timer(p.op->name, backend, s);
  const bool blend = p.exponential_avg_factor != 1.0;
  DeviceBuffer x, scale, offset, mean_in, var_in;
  {
    PhaseScope phase(timer, "upload");
    x = upload(p.in("x"), s);
    scale = upload_channel_input(p, "scale", false, s);
    offset = upload_channel_input(p, "offset", false, s);
    if (blend) {
      mean_in = upload_channel_input(p, "mean", false, s);
      var_in = upload_channel_input(p, "variance", false, s);
    }
  }
  OutputTensor& y_out = r.outputs[0];
  DeviceBuffer y(y_out.tensor.nbytes()), workspace(static_cast<std::size_t>(plan.workspace_bytes)),
      coef(4 * c * sizeof(float));
  ChannelResults results(c, false);
  ForwardTrainingLaunch f;
  f.x = x.get();
  f.y = y.get();
  f.scale = scale.get();
  f.offset = offset.get();
  f.mean_in = mean_in.get();
  f.var_in = var_in.get();
  f.epsilon = p.epsilon;
  f.factor = p.exponential_avg_factor;
  f.rs2_inv_std = p.convention == ReserveConvention::InvStd;
  f.batch_mean = results.make("batch_mean");
  f.batch_var = results.make("batch_variance");
  f.rs1 = results.make("reserve_space_1");
  f.rs2 = results.make("reserve_space_2");
  f.workspace = workspace.get();
  f.coef = coef.get();
  launch_forward_training(p.t, plan, view_of(p), f, s, timer);
  {
    PhaseScope phase(timer, "download");
    download(y, y_out.tensor, s);
    results.download(s);
  }
  timer.finish(r);
  results.store(r);
  if (f.rs2_inv_std)
    r.notes.push_back({NoteKind::Info, "reserve-convention",
                       "reserve_space_2 holds 1/sqrt(variance + epsilon), the inv_std "
                       "convention of TensorFlow on GPU, as the problem asks",
                       "reserve_space_2", -1});
}

// y = B*(x - mu) + D with per-channel coefficients computed here: inference and the global op.
void run_affine(const Prepared& p, Result& r, std::string_view backend) {
  const bool global = p.op->family == OpFamily::GlobalNorm;
  const bool dbl = acc_is_double(p);
  const auto c = static_cast<std::size_t>(p.channels());
  const std::vector<double> mean = p.in(global ? "m" : "mean").to_doubles();
  const std::vector<double> var = p.in(global ? "v" : "variance").to_doubles();
  const std::vector<double> gamma = p.in(global ? "gamma" : "scale").to_doubles();
  const std::vector<double> beta = p.in(global ? "beta" : "offset").to_doubles();
  std::vector<double> coef(4 * c, 0.0);
  for (std::size_t i = 0; i < c; ++i) {
    const double k = 1.0 / std::sqrt(var[i] + p.epsilon);
    coef[c + i] = (global && !p.scale_after_normalization ? 1.0 : gamma[i]) * k;
    coef[2 * c + i] = beta[i];
    coef[3 * c + i] = mean[i];
  }
  const Plan plan = plan_for(p, Work::GradDirect);
  CudaStream stream;
  const Stream s = stream.get();
  PhaseTimer timer(p.op->name, backend, s);
  DeviceBuffer x, coef_b;
  {
    PhaseScope phase(timer, "upload");
    x = upload(p.in(global ? "t" : "x"), s);
    coef_b = upload_channels(coef, dbl, s);
  }
  OutputTensor& y_out = r.outputs[0];
  DeviceBuffer y(y_out.tensor.nbytes());
  ElementwiseLaunch a;
  a.v = x.get();
  a.out = y.get();
  a.coef = coef_b.get();
  launch_elementwise(p.t, plan, view_of(p), a, s, timer);
  {
    PhaseScope phase(timer, "download");
    download(y, y_out.tensor, s);
  }
  timer.finish(r);
  if (!global) {  // the CPU kernel's copies of the population statistics
    r.output("batch_mean").tensor.set_doubles(mean);
    r.output("batch_variance").tensor.set_doubles(var);
  }
}

class CudaBackend : public Backend {
 public:
  std::string_view name() const override { return "cuda"; }
  std::string_view description() const override {
    return "bnscope's CUDA kernels: planner-chosen one-CTA-per-channel-group or split-M "
           "reductions, float accumulation";
  }
  std::string unavailable_reason() const override { return device_status().problem; }
  std::string unsupported_reason(const Prepared& p) const override {
    return cuda_unsupported_reason(p);
  }
  void run(const Prepared& p, Result& result, const RunContext& ctx) override {
    ctx.check_cancel();
    run_cuda_kernels(p, result, name());
  }
};

}  // namespace

std::string cuda_unsupported_reason(const Prepared& p) {
  const OpSpec& op = *p.op;
  if (op.family == OpFamily::Fused && p.t == DType::F64)
    return "TensorFlow registers no float64 kernel for " + std::string(op.name);
  if (op.family == OpFamily::GlobalNorm && p.t == DType::BF16)
    return "TensorFlow registers no bfloat16 kernel for " + std::string(op.name);
  return {};
}

void run_cuda_kernels(const Prepared& p, Result& result, std::string_view backend_name) {
  allocate_outputs(p, result);
  const OpSpec& op = *p.op;
  if (op.is_grad)
    run_grad(p, result, backend_name);
  else if (op.family == OpFamily::Fused && p.is_training)
    run_forward_training(p, result, backend_name);
  else
    run_affine(p, result, backend_name);
}

std::unique_ptr<Backend> make_cuda_backend() {
  return std::make_unique<CudaBackend>();
}

}  // namespace bnscope::gpu
