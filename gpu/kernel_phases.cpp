#include "kernel_phases.h"

#include "ops/catalog.h"

namespace bnscope::gpu {

namespace {

bool is_grad(const Prepared& p) {
  return p.op->is_grad;
}

// Forward training launches its reductions and then the elementwise y (kernel_runner.cpp).
bool is_forward_training(const Prepared& p) {
  return !p.op->is_grad && p.op->family == OpFamily::Fused && p.is_training;
}

}  // namespace

Work work_of(const Prepared& p) {
  if (is_forward_training(p)) return Work::Moments;
  if (is_grad(p) && p.is_training && p.op->family != OpFamily::GlobalNorm)
    return Work::GradTraining;
  return Work::GradDirect;
}

ShapeIn shape_in(const Prepared& p) {
  ShapeIn s;
  s.outer = p.view.outer;
  s.channels = p.view.channels;
  s.inner = p.view.inner;
  s.elem_bytes = static_cast<int>(dtype_size(p.t));
  s.acc_bytes = p.t == DType::F64 ? 8 : 4;
  s.work = work_of(p);
  return s;
}

PhaseInfo upload_phase(const Prepared& p) {
  return {"upload",
          is_grad(p) ? "x and dy copied to the device with the per-channel inputs"
                     : "x copied to the device with the per-channel inputs",
          is_grad(p) ? 2 : 1, 0};
}

PhaseInfo download_phase(const Prepared& p) {
  return {"download",
          is_grad(p) ? "dx and the per-channel outputs copied back"
                     : "y and the per-channel outputs copied back",
          1, 0};
}

std::vector<PhaseInfo> kernel_phases(const Prepared& p, const Plan& plan) {
  std::vector<PhaseInfo> phases;
  // Neighbouring kernels in shades of their own, so that the timeline tells them apart.
  const auto kernel = [&](const char* name, const char* description, int x_tensors) {
    const int shade = static_cast<int>(phases.size() - 1) % 3;
    phases.push_back({std::string("kernel:") + name, description, x_tensors, shade});
  };
  const Work work = work_of(p);
  const bool grad = is_grad(p);
  phases.push_back(upload_phase(p));
  if (work == Work::Moments) {
    kernel("forward_sum", "each slice of M sums x per channel into the workspace", 1);
    kernel("forward_mean", "the slices' sums finished into each channel's mean", 0);
    kernel("forward_centered_sum",
           "each slice of M sums (x - mean) and its square per channel into the workspace", 1);
    kernel("forward_finish",
           "the channels' variance, the running statistics and y's per-channel coefficients", 0);
    kernel("affine", "y = scale * (x - mean) / sqrt(variance + epsilon) + offset", 2);
  } else if (!grad) {
    kernel("affine", "y from the given statistics: one pass over x, a per-channel affine map", 2);
  } else if (plan.variant == Variant::SinglePass) {
    kernel("grad_single_pass",
           "one cooperative launch: the channel sums with x and dy held on chip across a grid "
           "barrier, then dx from the held tile",
           3);
  } else if (plan.variant == Variant::CtaPerGroup) {
    kernel("grad_cta_per_group",
           work == Work::GradTraining
               ? "one CTA per channel group: the sums over all of M, then dx reading x and dy "
                 "again (mostly from L2)"
               : "one CTA per channel group: the sums over all of M with dx written in the same "
                 "pass",
           work == Work::GradTraining ? 5 : 3);
  } else {
    kernel("grad_reduce",
           work == Work::GradTraining
               ? "each slice of M sums dy and dy * (x - mean) per channel into the workspace"
               : "each slice of M sums dy and dy * (x - mean) per channel, writing dx in the "
                 "same pass",
           work == Work::GradTraining ? 2 : 3);
    kernel("grad_finish", "the slices' partial sums finished per channel (one warp each)", 0);
    if (work == Work::GradTraining)
      kernel("grad_dx", "dx from the finished sums, 16 bytes a request, from the tensor's end back",
             3);
  }
  phases.push_back(download_phase(p));
  return phases;
}

}  // namespace bnscope::gpu
