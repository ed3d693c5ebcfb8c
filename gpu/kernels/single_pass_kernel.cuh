#pragma once
// The single-pass training grad (Variant::SinglePass): x and dy cross the memory bus once each
// and dx once, the 3-pass minimum, instead of 5.
//   1. CTA (group, split) loads its slice of block_x channels into registers (the first
//      kSinglePassRegItems positions of each thread) and shared memory (the rest), summing
//      sdy = sum dy and sdyx = sum dy*(x - mu) on the way in each thread's position order;
//   2. block_reduce_y's fixed tree gives the CTA's partials, written to partials[split][C][2];
//   3. a grid barrier (the launch is cooperative: every CTA is resident, so none waits for a
//      CTA that cannot start);
//   4. every CTA of the group sums the group's partials over the splits in the same fixed order
//      (a strided per-thread walk, then the same tree), so all of them hold bitwise the same
//      totals and no float atomics are involved: the result is the same on every run;
//   5. split 0 writes the per-channel outputs; every CTA computes dx = A*dy + B*(x - mu) + D for
//      its held tile, with the expressions of the two-pass kernels.
// Arithmetic: loads widen to the accumulation type (float for half and bfloat16) and dx is
// rounded once, as TensorFlow's fused grads compute; no packed half math, which would round
// the per-element terms in 16 bits.
// Registers (ptxas -v, sm_90, 32-bit index): 60 for float, 56 for half and bfloat16, no stack
// and no spills, so the held items are registers indeed and 4 CTAs fit per SM. The 64-bit index
// instantiation spills 8 bytes; it is never planned (2^31 values are far past any chip).

#include "../blocks/block_reduce.cuh"
#include "../blocks/grid_sync.cuh"
#include "../blocks/index.cuh"
#include "../blocks/shared.cuh"
#include "../blocks/types.cuh"
#include "../planner.h"
#include "channel_math.cuh"

namespace bnscope::gpu::BNSCOPE_DEVICE_NS {

struct SinglePassArgs {
  long long m_per_split = 0;
  int smem_items = 0;         // positions per thread held in shared memory
  int tile_offset_bytes = 0;  // where the shared tile starts (after the reduction scratch)
};

template <class T, class Index>
__global__ void __launch_bounds__(kSinglePassThreads, kSinglePassMinBlocksPerSm)
    grad_single_pass_kernel(DeviceView<Index> v, GradLaunch g, SinglePassArgs a) {
  using Acc = acc_t<T>;
  constexpr int kReg = kSinglePassRegItems;
  const auto scratch = dynamic_shared<Acc>();
  const unsigned threads = blockDim.x * blockDim.y;
  const unsigned tid = threadIdx.y * blockDim.x + threadIdx.x;
  const auto tile_x = dynamic_shared<T>() + a.tile_offset_bytes / static_cast<int>(sizeof(T));
  const auto tile_dy = tile_x + static_cast<long long>(a.smem_items) * threads;
  const Index c = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x;
  const bool valid = c < v.channels;
  const Index m = v.per_channel();
  const Index span = static_cast<Index>(a.m_per_split);
  const Index begin = static_cast<Index>(blockIdx.y) * span;
  const Index end = m - begin < span ? m : begin + span;
  const Index by = blockDim.y;
  const T* x = static_cast<const T*>(g.x);
  const T* dy = static_cast<const T*>(g.dy);
  T* dx = static_cast<T*>(g.dx);

  // 1. Load and sum. The register items are indexed by unrolled constants, so they stay in
  // registers; positions past the slice are skipped, never loaded.
  T rx[kReg], rdy[kReg];
  Acc s0 = 0, s1 = 0;
  const Acc mu = valid ? static_cast<const Acc*>(g.mean)[c] : Acc(0);
#pragma unroll
  for (int k = 0; k < kReg; ++k) {
    const Index i = begin + threadIdx.y + static_cast<Index>(k) * by;
    if (valid && i < end) {
      const Index e = v.offset(i, c);
      rx[k] = x[e];
      rdy[k] = dy[e];
      const Acc d = to_acc(rdy[k]);
      s0 += d;
      s1 += d * (to_acc(rx[k]) - mu);
    }
  }
  for (int k = 0; k < a.smem_items; ++k) {
    const Index i = begin + threadIdx.y + static_cast<Index>(kReg + k) * by;
    if (valid && i < end) {
      const Index e = v.offset(i, c);
      const T xv = x[e], dv = dy[e];
      tile_x[static_cast<long long>(k) * threads + tid] = xv;
      tile_dy[static_cast<long long>(k) * threads + tid] = dv;
      const Acc d = to_acc(dv);
      s0 += d;
      s1 += d * (to_acc(xv) - mu);
    }
  }

  // 2. The CTA's partials.
  block_reduce_y(s0, s1, scratch);
  Acc* partials = static_cast<Acc*>(g.workspace);
  if (valid && threadIdx.y == 0) {
    Acc* p = partials + (static_cast<Index>(blockIdx.y) * v.channels + c) * 2;
    p[0] = s0;
    p[1] = s1;
  }

  // 3. Every CTA's partials are written.
  grid_sync();

  // 4. The group's totals, in the same order in every CTA of the group.
  Acc t0 = 0, t1 = 0;
  if (valid)
    for (Index sp = threadIdx.y; sp < gridDim.y; sp += by) {
      const Acc* p = partials + (sp * v.channels + c) * 2;
      t0 += p[0];
      t1 += p[1];
    }
  block_reduce_y(t0, t1, scratch);

  // 5. Outputs once, coefficients everywhere, then dx from the held tile.
  if (valid && threadIdx.y == 0) {
    const Coef<Acc> r =
        blockIdx.y == 0 ? grad_epilogue<Acc>(g, c, t0, t1, m) : training_coef<Acc>(g, c, t0, t1, m);
    scratch[threadIdx.x * 4 + 0] = r.a;
    scratch[threadIdx.x * 4 + 1] = r.b;
    scratch[threadIdx.x * 4 + 2] = r.d;
    scratch[threadIdx.x * 4 + 3] = r.mu;
  }
  __syncthreads();
  if (!valid) return;
  const Acc ca = scratch[threadIdx.x * 4 + 0], cb = scratch[threadIdx.x * 4 + 1],
            cd = scratch[threadIdx.x * 4 + 2], cmu = scratch[threadIdx.x * 4 + 3];
#pragma unroll
  for (int k = 0; k < kReg; ++k) {
    const Index i = begin + threadIdx.y + static_cast<Index>(k) * by;
    if (i < end)
      dx[v.offset(i, c)] = from_acc<T>(ca * to_acc(rdy[k]) + cb * (to_acc(rx[k]) - cmu) + cd);
  }
  for (int k = 0; k < a.smem_items; ++k) {
    const Index i = begin + threadIdx.y + static_cast<Index>(kReg + k) * by;
    if (i < end) {
      const T xv = tile_x[static_cast<long long>(k) * threads + tid];
      const T dv = tile_dy[static_cast<long long>(k) * threads + tid];
      dx[v.offset(i, c)] = from_acc<T>(ca * to_acc(dv) + cb * (to_acc(xv) - cmu) + cd);
    }
  }
}

}  // namespace bnscope::gpu::BNSCOPE_DEVICE_NS
