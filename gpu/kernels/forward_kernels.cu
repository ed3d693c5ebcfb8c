// Forward kernels of the cuda backend: FusedBatchNorm/V2/V3 (training and inference) and
// BatchNormWithGlobalNormalization. They produce the grad ops' inputs, so they follow the CPU
// kernel's statistics exactly: biased variance in reserve_space_2 (or 1/sqrt(var + eps) when the
// run asks for cuDNN's convention) and the Bessel-corrected one in batch_variance.
//
// Design. Training statistics take two reduction passes over x and one elementwise pass:
// pass 1 sums x (mean mu0), pass 2 sums d = x - mu0 and d^2 and corrects the mean by sum(d)/M,
// which keeps the variance accurate when |mean| >> std (a one-pass sum of squares loses it).
// Both passes use the split-M reduce kernel of reduce_kernel.cuh and the warp-per-channel
// second stage; the elementwise pass reads x once more and writes y: 4 passes in total
// (read x three times, write y). Inference and the global op are one elementwise pass with
// coefficients the host computes from the [C] inputs. Scalar loads, as in grad_kernels.cu.

#include "../blocks/target.cuh"
// clang-format off
#include "../blocks/grid_reduce.cuh"
#include "launch_kernel.cuh"
#include "launchers.cuh"
#include "reduce_kernel.cuh"
// clang-format on

namespace bnscope::gpu::BNSCOPE_DEVICE_NS {

namespace {

template <class Acc, class Index>
__global__ void mean_finish_kernel(Index channels, Index m, int splits, const Acc* partials,
                                   Acc* mu) {
  const Index c = (static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const unsigned lane = threadIdx.x % 32;
  if (c >= channels) return;
  Acc s0, s1;
  sum_partials(partials, splits, channels, c, lane, s0, s1);
  if (lane == 0) mu[c] = s0 / static_cast<Acc>(m);
}

template <class Acc, class Index>
__global__ void forward_finish_kernel(Index channels, Index m, int splits,
                                      ForwardTrainingLaunch f) {
  const Index c = (static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const unsigned lane = threadIdx.x % 32;
  if (c >= channels) return;
  Acc s0, s1;
  sum_partials(static_cast<const Acc*>(f.workspace), splits, channels, c, lane, s0, s1);
  if (lane != 0) return;
  const Acc mu0 = static_cast<const Acc*>(f.coef)[3 * channels + c];
  store_coef(f.coef, channels, c, forward_epilogue<Acc>(f, c, mu0, s0, s1, m));
}

template <class T, class Index>
void run_forward(DType t, const Plan& plan, const View& view, const ForwardTrainingLaunch& f,
                 Stream s, PhaseHooks& hooks) {
  using Acc = acc_t<T>;
  const DeviceView<Index> v{static_cast<Index>(view.outer), static_cast<Index>(view.channels),
                            static_cast<Index>(view.inner)};
  const dim3 grid(static_cast<unsigned>(plan.groups), static_cast<unsigned>(plan.splits));
  const dim3 block(plan.block_x, plan.block_y);
  const auto smem = static_cast<size_t>(plan.shared_bytes);
  const unsigned finish_blocks = static_cast<unsigned>((view.channels + 7) / 8);
  Acc* mu = static_cast<Acc*>(f.coef) + 3 * view.channels;
  ReduceArgs r;
  r.a = f.x;
  r.partials = f.workspace;
  r.m_per_split = plan.m_per_split;

  hooks.begin("forward_sum");
  launch_kernel("reduce_partials_kernel", reduce_partials_kernel<T, Index, false>, grid, block,
                smem, s, v, r, GradLaunch{});
  hooks.end();
  hooks.begin("forward_mean");
  launch_kernel("mean_finish_kernel", mean_finish_kernel<Acc, Index>, dim3(finish_blocks),
                dim3(256), 0, s, v.channels, v.per_channel(), plan.splits, f.workspace, mu);
  hooks.end();
  r.mu = mu;
  hooks.begin("forward_centered_sum");
  launch_kernel("reduce_partials_kernel", reduce_partials_kernel<T, Index, false>, grid, block,
                smem, s, v, r, GradLaunch{});
  hooks.end();
  hooks.begin("forward_finish");
  launch_kernel("forward_finish_kernel", forward_finish_kernel<Acc, Index>, dim3(finish_blocks),
                dim3(256), 0, s, v.channels, v.per_channel(), plan.splits, f);
  hooks.end();
  ElementwiseLaunch y;
  y.v = f.x;
  y.out = f.y;
  y.coef = f.coef;
  launch_elementwise(t, plan, view, y, s, hooks);
}

template <class T>
void run_forward_typed(DType t, const Plan& plan, const View& view, const ForwardTrainingLaunch& f,
                       Stream s, PhaseHooks& hooks) {
  if (plan.index64)
    run_forward<T, long long>(t, plan, view, f, s, hooks);
  else
    run_forward<T, unsigned>(t, plan, view, f, s, hooks);
}

}  // namespace

void launch_forward_training(DType t, const Plan& plan, const View& view,
                             const ForwardTrainingLaunch& f, Stream s, PhaseHooks& hooks) {
  switch (t) {
    case DType::F16:
      return run_forward_typed<__half>(t, plan, view, f, s, hooks);
    case DType::BF16:
      return run_forward_typed<__nv_bfloat16>(t, plan, view, f, s, hooks);
    case DType::F32:
      return run_forward_typed<float>(t, plan, view, f, s, hooks);
    case DType::F64:
      break;
  }
  throw Error(ErrorCode::Unimplemented,
              "forward training in float64: TensorFlow registers no such kernel");
}

}  // namespace bnscope::gpu::BNSCOPE_DEVICE_NS
