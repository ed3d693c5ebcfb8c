#pragma once
// The split-M first stage: CTA (group, split) reduces positions [split*mps, (split+1)*mps) of
// block_x channels and writes two partial sums per channel to partials[split][C][2].
//   kGrad:  s0 = sum dy, s1 = sum dy*(x - mu); with g.dx set (freeze/global) it also writes
//           dx = A*dy in the same pass, since A needs no reduction.
//   !kGrad: s0 = sum (x - mu), s1 = sum (x - mu)^2 (mu null: 0), the forward statistics.

#include "../blocks/block_reduce.cuh"
#include "../blocks/index.cuh"
#include "../blocks/shared.cuh"
#include "../blocks/types.cuh"
#include "channel_math.cuh"

namespace bnscope::gpu::BNSCOPE_DEVICE_NS {

struct ReduceArgs {
  const void* a = nullptr;   // x
  const void* b = nullptr;   // dy (kGrad)
  const void* mu = nullptr;  // per-channel centre, may be null
  void* partials = nullptr;
  long long m_per_split = 0;
};

template <class T, class Index, bool kGrad>
__global__ void reduce_partials_kernel(DeviceView<Index> v, ReduceArgs r, GradLaunch g) {
  using Acc = acc_t<T>;
  const auto smem = dynamic_shared<Acc>();
  const Index c = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x;
  const Index m = v.per_channel();
  const Index begin = static_cast<Index>(blockIdx.y) * static_cast<Index>(r.m_per_split);
  const Index span = static_cast<Index>(r.m_per_split);
  const Index end = begin >= m ? begin : (m - begin < span ? m : begin + span);
  Acc s0 = 0, s1 = 0;
  if (c < v.channels) {
    const T* a = static_cast<const T*>(r.a);
    const T* b = static_cast<const T*>(r.b);
    const Acc mu = r.mu ? static_cast<const Acc*>(r.mu)[c] : Acc(0);
    T* dx = kGrad ? static_cast<T*>(g.dx) : nullptr;
    const Acc direct = kGrad && dx ? direct_factor<Acc>(g, c) : Acc(0);
    for (Index i = begin + threadIdx.y; i < end; i += blockDim.y) {
      const Index e = v.offset(i, c);
      const Acc d = to_acc(a[e]) - mu;
      if constexpr (kGrad) {
        const Acc dy = to_acc(b[e]);
        s0 += dy;
        s1 += dy * d;
        if (dx) dx[e] = from_acc<T>(direct * dy);
      } else {
        s0 += d;
        s1 += d * d;
      }
    }
  }
  block_reduce_y(s0, s1, smem);
  if (threadIdx.y == 0 && c < v.channels) {
    Acc* p = static_cast<Acc*>(r.partials) + (static_cast<Index>(blockIdx.y) * v.channels + c) * 2;
    p[0] = s0;
    p[1] = s1;
  }
}

}  // namespace bnscope::gpu::BNSCOPE_DEVICE_NS
