#pragma once
// The [outer, C, inner] index model of core/tensor/layout.h on the device. Index is uint32_t
// when the planner found E < 2^31, int64_t otherwise.

#include "target.cuh"

namespace bnscope::gpu::BNSCOPE_DEVICE_NS {

template <class Index>
struct DeviceView {
  Index outer, channels, inner;
  __host__ __device__ __forceinline__ Index per_channel() const { return outer * inner; }
  // Offset of position m (0 <= m < outer*inner) of channel c.
  __host__ __device__ __forceinline__ Index offset(Index m, Index c) const {
    if (inner == 1) return m * channels + c;  // NHWC rows: no division
    const Index o = m / inner;
    return (o * channels + c) * inner + (m - o * inner);
  }
  __host__ __device__ __forceinline__ Index channel_of(Index e) const {
    return (e / inner) % channels;
  }
};

}  // namespace bnscope::gpu::BNSCOPE_DEVICE_NS
