#include "kernel_runner.h"

#include <cmath>

#include "channel_io.h"
#include "device_memory.h"
#include "kernel_phases.h"
#include "ops/catalog.h"
#include "ops/outputs.h"
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

// The end of a launch: the data output and the per-channel results come back (timed as the
// download phase), then the timings and the per-channel values land in the result.
void finish_launch(PhaseTimer& timer, const DeviceBuffer& out, Tensor& out_tensor,
                   ChannelResults& results, Stream s, Result& r) {
  {
    PhaseScope phase(timer, "download");
    download(out, out_tensor, s);
    results.download(s);
  }
  timer.finish(r);
  results.store(r);
}

void run_grad(DeviceRuntime& rt, const Prepared& p, Result& r, std::string_view backend,
              const PlanOverride& override_plan) {
  const bool global = p.op->family == OpFamily::GlobalNorm;
  const bool dbl = acc_is_double(p);
  const auto c = static_cast<std::size_t>(p.channels());
  const Plan plan = plan_for(rt, p, override_plan);
  DeviceStream stream(rt);
  const Stream s = stream.get();
  PhaseTimer timer(rt, p.op->name, backend, s);

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
    x = upload(rt, p.in(global ? "t" : "x"), s);
    dy = upload(rt, p.in(global ? "backprop" : "y_backprop"), s);
    mean = upload_channel_input(rt, p, global ? "m" : "reserve_space_1", dbl, s);
    var = upload_channel_input(rt, p, global ? "v" : "reserve_space_2", dbl, s);
    scale = upload_channel_input(rt, p, global ? "gamma" : "scale", dbl, s);
  }
  OutputTensor& dx_out = r.outputs[0];
  DeviceBuffer dx(rt, dx_out.tensor.nbytes()),
      workspace(rt, static_cast<std::size_t>(plan.workspace_bytes)), coef(rt, 4 * c * acc_bytes(p));
  ChannelResults results(rt, c, dbl);
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
  rt.kernels().grad(p.t, plan, view_of(p), g, s, timer);
  finish_launch(timer, dx, dx_out.tensor, results, s, r);
}

void run_forward_training(DeviceRuntime& rt, const Prepared& p, Result& r, std::string_view backend,
                          const PlanOverride& override_plan) {
  const auto c = static_cast<std::size_t>(p.channels());
  const Plan plan = plan_for(rt, p, override_plan);
  DeviceStream stream(rt);
  const Stream s = stream.get();
  PhaseTimer timer(rt, p.op->name, backend, s);
  const bool blend = p.exponential_avg_factor != 1.0;
  DeviceBuffer x, scale, offset, mean_in, var_in;
  {
    PhaseScope phase(timer, "upload");
    x = upload(rt, p.in("x"), s);
    scale = upload_channel_input(rt, p, "scale", false, s);
    offset = upload_channel_input(rt, p, "offset", false, s);
    if (blend) {
      mean_in = upload_channel_input(rt, p, "mean", false, s);
      var_in = upload_channel_input(rt, p, "variance", false, s);
    }
  }
  OutputTensor& y_out = r.outputs[0];
  DeviceBuffer y(rt, y_out.tensor.nbytes()),
      workspace(rt, static_cast<std::size_t>(plan.workspace_bytes)),
      coef(rt, 4 * c * sizeof(float));
  ChannelResults results(rt, c, false);
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
  rt.kernels().forward_training(p.t, plan, view_of(p), f, s, timer);
  finish_launch(timer, y, y_out.tensor, results, s, r);
  if (f.rs2_inv_std)
    r.notes.push_back({NoteKind::Info, "reserve-convention",
                       "reserve_space_2 holds 1/sqrt(variance + epsilon), the inv_std "
                       "convention of TensorFlow on GPU, as the problem asks",
                       "reserve_space_2", -1});
}

// y = B*(x - mu) + D with per-channel coefficients computed here: inference and the global op.
void run_affine(DeviceRuntime& rt, const Prepared& p, Result& r, std::string_view backend,
                const PlanOverride& override_plan) {
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
  const Plan plan = plan_for(rt, p, override_plan);
  DeviceStream stream(rt);
  const Stream s = stream.get();
  PhaseTimer timer(rt, p.op->name, backend, s);
  DeviceBuffer x, coef_b;
  {
    PhaseScope phase(timer, "upload");
    x = upload(rt, p.in(global ? "t" : "x"), s);
    coef_b = upload_channels(rt, coef, dbl, s);
  }
  OutputTensor& y_out = r.outputs[0];
  DeviceBuffer y(rt, y_out.tensor.nbytes());
  ElementwiseLaunch a;
  a.v = x.get();
  a.out = y.get();
  a.coef = coef_b.get();
  rt.kernels().elementwise(p.t, plan, view_of(p), a, s, timer);
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

}  // namespace

Plan plan_for(DeviceRuntime& rt, const Prepared& p, const PlanOverride& override_plan) {
  Plan plan = plan_launch(shape_in(p), rt.limits());
  if (override_plan) override_plan(plan);
  return plan;
}

std::string kernels_unsupported_reason(const Prepared& p) {
  const OpSpec& op = *p.op;
  for (DType t : op.gpu_types)
    if (t == p.t) return {};
  return "TensorFlow registers no " + std::string(dtype_name(p.t)) + " GPU kernel for " +
         std::string(op.name);
}

void run_kernels(DeviceRuntime& rt, const Prepared& p, Result& result,
                 std::string_view backend_name, const PlanOverride& override_plan) {
  allocate_outputs(p, result);
  const OpSpec& op = *p.op;
  if (op.is_grad)
    run_grad(rt, p, result, backend_name, override_plan);
  else if (op.family == OpFamily::Fused && p.is_training)
    run_forward_training(rt, p, result, backend_name, override_plan);
  else
    run_affine(rt, p, result, backend_name, override_plan);
}

}  // namespace bnscope::gpu
