#pragma once
// The launchers the .cu files export to the host code: each runs a Plan's kernels on a stream.
// Per-channel arrays are of the accumulation type (double for f64 data, float otherwise);
// data tensors are of the storage type of DType.

#include <cstdint>

#include "planner.h"
#include "tensor/dtype.h"

struct CUstream_st;

namespace bnscope::gpu {

using Stream = CUstream_st*;

struct View {
  std::int64_t outer = 0, channels = 0, inner = 0;
};

// Called around every kernel launch (NVTX range, CUDA events); name is the kernel's role.
class PhaseHooks {
 public:
  virtual ~PhaseHooks() = default;
  virtual void begin(const char* name) = 0;
  virtual void end() = 0;
};

enum class GradKind : int { Training, Freeze, GlobalScaled, GlobalUnscaled };

struct GradLaunch {
  const void* dy = nullptr;
  const void* x = nullptr;
  void* dx = nullptr;
  const void* mean = nullptr;   // reserve_space_1, population mean, or m
  const void* var = nullptr;    // variance, or the inverse std when var_is_inv_std
  const void* scale = nullptr;  // gamma
  bool var_is_inv_std = false;
  double epsilon = 0;
  GradKind kind = GradKind::Training;
  void* out_scale = nullptr;   // scale_backprop, or dg
  void* out_offset = nullptr;  // offset_backprop, or db
  void* out_dm = nullptr;      // global only
  void* out_dv = nullptr;      // global only
  void* workspace = nullptr;   // Plan::workspace_bytes
  void* coef = nullptr;        // 4*C accumulators
};

struct ForwardTrainingLaunch {
  const void* x = nullptr;
  void* y = nullptr;
  const void* scale = nullptr;
  const void* offset = nullptr;
  const void* mean_in = nullptr;  // read only when factor != 1
  const void* var_in = nullptr;
  double epsilon = 0, factor = 1;
  bool rs2_inv_std = false;  // reserve_space_2 as 1/sqrt(var + eps) instead of the variance
  void* batch_mean = nullptr;
  void* batch_var = nullptr;
  void* rs1 = nullptr;
  void* rs2 = nullptr;
  void* workspace = nullptr;
  void* coef = nullptr;  // 4*C accumulators
};

// out = A_c*u + B_c*(v - mu_c) + D_c with coef = [A | B | D | mu], each C long; u may be null.
struct ElementwiseLaunch {
  const void* u = nullptr;
  const void* v = nullptr;
  void* out = nullptr;
  const void* coef = nullptr;
};

// The launchers of kernels/*.cu: built by nvcc for a device (cuda_device) and, from the same
// sources, as host C++ for the emulator (emulated). The orchestration picks a set through
// DeviceRuntime::kernels().
struct KernelLaunchers {
  void (*grad)(DType t, const Plan& plan, const View& view, const GradLaunch& a, Stream s,
               PhaseHooks& hooks);
  void (*forward_training)(DType t, const Plan& plan, const View& view,
                           const ForwardTrainingLaunch& a, Stream s, PhaseHooks& hooks);
  void (*elementwise)(DType t, const Plan& plan, const View& view, const ElementwiseLaunch& a,
                      Stream s, PhaseHooks& hooks);
  // dst[b][j][i] = src[b][i][j] for batches of rows x cols elements of element_bytes each.
  void (*transpose)(std::size_t element_bytes, const void* src, void* dst, std::int64_t batches,
                    std::int64_t rows, std::int64_t cols, Stream s, PhaseHooks& hooks);
};

namespace cuda_device {
const KernelLaunchers& launchers();
}
namespace emulated {
const KernelLaunchers& launchers();
}

}  // namespace bnscope::gpu
