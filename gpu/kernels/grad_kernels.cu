// Gradient kernels of the cuda backend: FusedBatchNormGrad/V2/V3 (training and freeze) and
// BatchNormWithGlobalNormalizationGrad.
//
// Design. All grads need two per-channel sums over M, sdy = sum dy and sdyx = sum dy*(x - mu),
// accumulated in float (double for f64) with a fixed reduction tree, so results are bitwise
// reproducible (no atomics).
//  * Passes over memory. Freeze and global grads: dx = A*dy with A known up front, so dx is
//    written in the reduction loop: one pass (read x, dy; write dx), the 3-pass minimum.
//    Training grad: dx depends on the finished sums (a per-channel barrier), so x and dy are
//    read twice: 5 passes. In the one-CTA-per-channel-group variant the second read follows the
//    first within the same CTA and mostly hits L2 for the group's slice; in split-M the
//    elementwise kernel re-reads from DRAM unless the tensor fits L2 (~50 MB on H100).
//  * Persistence: a training grad whose x and dy fit in the registers and shared memory of the
//    co-resident CTAs runs single-pass (single_pass_kernel.cuh): one cooperative launch, the
//    data held on chip across a grid barrier, 3 passes. Larger ones take the paths below, with
//    the dx kernel walking the tensor from its end so that its first reads hit what L2 holds.
//  * Variants (planner.cpp): SinglePass as above; CtaPerGroup when the channel groups alone fill a
//  wave (8 CTAs of
//    256 threads per SM) or M is short; otherwise SplitM: grid.y slices of M write partials to
//    a workspace, a second stage (one warp per channel, grid_reduce.cuh) finishes the channel.
//  * Occupancy: 256-thread CTAs with 2*256 accumulators of shared memory (2 KB float). The
//    gpu_disasm listing shows at most 48 registers and no local memory for sm_80/sm_90, so at
//    least 5 CTAs (1280 threads) per SM are resident; the planner's wave assumes 8, which the
//    float, 32-bit-index kernels (the common case) reach.
//  * Vector widths: the dx kernel moves 16 bytes a request (vector_io.cuh). The reductions'
//    loads are scalar: NHWC lanes take neighbouring channels (a warp reads a 128-byte row
//    segment for f32, 64 bytes for 16-bit types); NCHW lanes walk a channel's contiguous plane.
//    Vector loads there change which lane owns which values, and so the summation order; they
//    wait for device timings that show the reductions instruction-bound.
//  * Indexing: Index = uint32_t below 2^31 elements, int64_t above (planner's index64).

#include "../blocks/target.cuh"
// clang-format off
#include "../blocks/grid_reduce.cuh"
#include "../blocks/shared.cuh"
#include "../blocks/vector_io.cuh"
#include "channel_math.cuh"
#include "launch_kernel.cuh"
#include "launchers.cuh"
#include "reduce_kernel.cuh"
#include "single_pass_kernel.cuh"
// clang-format on

namespace bnscope::gpu::BNSCOPE_DEVICE_NS {

namespace {

// One CTA owns block_x channels over all of M: reduce, epilogue, then (training) dx.
template <class T, class Index>
__global__ void grad_cta_per_group_kernel(DeviceView<Index> v, GradLaunch g) {
  using Acc = acc_t<T>;
  const auto smem = dynamic_shared<Acc>();
  const Index c = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x;
  const Index m = v.per_channel();
  const bool valid = c < v.channels;
  const T* x = static_cast<const T*>(g.x);
  const T* dy = static_cast<const T*>(g.dy);
  T* dx = static_cast<T*>(g.dx);
  const bool direct = g.kind != GradKind::Training;
  Acc s0 = 0, s1 = 0;
  if (valid) {
    const Acc mu = static_cast<const Acc*>(g.mean)[c];
    const Acc a = direct ? direct_factor<Acc>(g, c) : Acc(0);
    for (Index i = threadIdx.y; i < m; i += blockDim.y) {
      const Index e = v.offset(i, c);
      const Acc d = to_acc(dy[e]);
      s0 += d;
      s1 += d * (to_acc(x[e]) - mu);
      if (direct) dx[e] = from_acc<T>(a * d);
    }
  }
  block_reduce_y(s0, s1, smem);
  if (direct) {
    if (valid && threadIdx.y == 0) grad_epilogue<Acc>(g, c, s0, s1, m);
    return;
  }
  const auto coef = smem;  // 4 per column, after block_reduce_y's last barrier
  if (valid && threadIdx.y == 0) {
    const Coef<Acc> r = grad_epilogue<Acc>(g, c, s0, s1, m);
    coef[threadIdx.x * 4 + 0] = r.a;
    coef[threadIdx.x * 4 + 1] = r.b;
    coef[threadIdx.x * 4 + 2] = r.d;
    coef[threadIdx.x * 4 + 3] = r.mu;
  }
  __syncthreads();
  if (!valid) return;
  const Acc a = coef[threadIdx.x * 4 + 0], b = coef[threadIdx.x * 4 + 1],
            d0 = coef[threadIdx.x * 4 + 2], mu = coef[threadIdx.x * 4 + 3];
  for (Index i = threadIdx.y; i < m; i += blockDim.y) {
    const Index e = v.offset(i, c);
    dx[e] = from_acc<T>(a * to_acc(dy[e]) + b * (to_acc(x[e]) - mu) + d0);
  }
}

// Second stage of split-M: one warp per channel.
template <class Acc, class Index>
__global__ void grad_finish_kernel(Index channels, Index m, int splits, GradLaunch g) {
  const Index c = (static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const unsigned lane = threadIdx.x % 32;
  if (c >= channels) return;
  Acc s0, s1;
  sum_partials(static_cast<const Acc*>(g.workspace), splits, channels, c, lane, s0, s1);
  if (lane != 0) return;
  const Coef<Acc> r = grad_epilogue<Acc>(g, c, s0, s1, m);
  if (g.kind == GradKind::Training) store_coef(g.coef, channels, c, r);
}

// dx = A*dy + B*(x - mu) + D, 16 bytes of x, dy and dx a request, from the tensor's end back:
// the reduce kernel's last CTAs read the end of M, which is what L2 still holds when this kernel
// starts. The last n % kN values (n not a multiple of the vector) go one by one.
template <class T, class Index>
__global__ void grad_dx_kernel(DeviceView<Index> v, GradLaunch g) {
  using Acc = acc_t<T>;
  constexpr Index kN = Vec16<T>::kN;
  const Acc* coef = static_cast<const Acc*>(g.coef);
  const T* x = static_cast<const T*>(g.x);
  const T* dy = static_cast<const T*>(g.dy);
  T* dx = static_cast<T*>(g.dx);
  const Index n = v.outer * v.channels * v.inner;
  const Index vectors = n / kN;
  const Index stride = static_cast<Index>(gridDim.x) * blockDim.x;
  const Index first = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x;
  const auto value = [&](Index e, T dyv, T xv) {
    const Index c = v.channel_of(e);
    return from_acc<T>(coef[c] * to_acc(dyv) +
                       coef[v.channels + c] * (to_acc(xv) - coef[3 * v.channels + c]) +
                       coef[2 * v.channels + c]);
  };
  for (Index r = first; r < vectors; r += stride) {
    const Index e0 = (vectors - 1 - r) * kN;
    const Vec16<T> xv = load16(x + e0), dv = load16(dy + e0);
    Vec16<T> out;
#pragma unroll
    for (Index j = 0; j < kN; ++j) out.v[j] = value(e0 + j, dv.v[j], xv.v[j]);
    store16(dx + e0, out);
  }
  for (Index e = vectors * kN + first; e < n; e += stride) dx[e] = value(e, dy[e], x[e]);
}

template <class T, class Index>
void run_grad(const Plan& plan, const View& view, const GradLaunch& g, Stream s,
              PhaseHooks& hooks) {
  using Acc = acc_t<T>;
  const DeviceView<Index> v{static_cast<Index>(view.outer), static_cast<Index>(view.channels),
                            static_cast<Index>(view.inner)};
  const dim3 block(plan.block_x, plan.block_y);
  const auto smem = static_cast<size_t>(plan.shared_bytes);
  if constexpr (sizeof(T) <= 4) {  // the planner holds no 8-byte tiles on chip
    if (plan.variant == Variant::SinglePass) {
      SinglePassArgs a;
      a.m_per_split = plan.m_per_split;
      a.smem_items = plan.smem_items;
      a.tile_offset_bytes = plan.tile_offset_bytes;
      KernelFootprint k;
      k.threads = plan.threads();
      k.registers_per_thread = kSinglePassRegisters;
      hooks.begin("grad_single_pass");
      launch_cooperative_kernel(
          "grad_single_pass_kernel", grad_single_pass_kernel<T, Index>,
          dim3(static_cast<unsigned>(plan.groups), static_cast<unsigned>(plan.splits)), block, smem,
          k, s, v, g, a);
      hooks.end();
      return;
    }
  }
  if (plan.variant == Variant::SinglePass)
    throw Error(ErrorCode::Internal, "single-pass plan for 8-byte data");
  if (plan.variant == Variant::CtaPerGroup) {
    hooks.begin("grad_cta_per_group");
    launch_kernel("grad_cta_per_group_kernel", grad_cta_per_group_kernel<T, Index>,
                  dim3(static_cast<unsigned>(plan.groups)), block, smem, s, v, g);
    hooks.end();
    return;
  }
  ReduceArgs r;
  r.a = g.x;
  r.b = g.dy;
  r.mu = g.mean;
  r.partials = g.workspace;
  r.m_per_split = plan.m_per_split;
  // The reduction writes dx only where dx needs no sums (freeze, global); a training grad's dx
  // comes from grad_dx, and a write here would be one more tensor of traffic for nothing.
  GradLaunch rg = g;
  if (g.kind == GradKind::Training) rg.dx = nullptr;
  hooks.begin("grad_reduce");
  launch_kernel("reduce_partials_kernel", reduce_partials_kernel<T, Index, true>,
                dim3(static_cast<unsigned>(plan.groups), static_cast<unsigned>(plan.splits)), block,
                smem, s, v, r, rg);
  hooks.end();
  hooks.begin("grad_finish");
  const auto warps_per_block = 8;
  const auto blocks =
      static_cast<unsigned>((view.channels + warps_per_block - 1) / warps_per_block);
  launch_kernel("grad_finish_kernel", grad_finish_kernel<Acc, Index>, dim3(blocks),
                dim3(32 * warps_per_block), 0, s, v.channels, v.per_channel(), plan.splits, g);
  hooks.end();
  if (g.kind != GradKind::Training) return;
  hooks.begin("grad_dx");
  for (const void* p : {g.x, g.dy, static_cast<const void*>(g.dx)})
    if (reinterpret_cast<std::uintptr_t>(p) % 16 != 0)
      throw Error(ErrorCode::Internal, "grad_dx_kernel: a data tensor is not 16-byte aligned");
  launch_kernel("grad_dx_kernel", grad_dx_kernel<T, Index>,
                dim3(static_cast<unsigned>(plan.ew_grid)),
                dim3(static_cast<unsigned>(plan.ew_block)), 0, s, v, g);
  hooks.end();
}

template <class T>
void run_grad_typed(const Plan& plan, const View& view, const GradLaunch& g, Stream s,
                    PhaseHooks& hooks) {
  if (plan.index64)
    run_grad<T, long long>(plan, view, g, s, hooks);
  else
    run_grad<T, unsigned>(plan, view, g, s, hooks);
}

}  // namespace

void launch_grad(DType t, const Plan& plan, const View& view, const GradLaunch& g, Stream s,
                 PhaseHooks& hooks) {
  switch (t) {
    case DType::F16:
      return run_grad_typed<__half>(plan, view, g, s, hooks);
    case DType::BF16:
      return run_grad_typed<__nv_bfloat16>(plan, view, g, s, hooks);
    case DType::F32:
      return run_grad_typed<float>(plan, view, g, s, hooks);
    case DType::F64:
      return run_grad_typed<double>(plan, view, g, s, hooks);
  }
}

}  // namespace bnscope::gpu::BNSCOPE_DEVICE_NS
