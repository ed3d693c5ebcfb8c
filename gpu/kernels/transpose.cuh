#pragma once
// dst[b][j][i] = src[b][i][j] over a batch of rows x cols matrices: NHWC data (rows = spatial,
// cols = C) to NCHW and back. A block moves one 32 x 32 tile at a time through shared memory,
// padded by a column against bank conflicts, so both the reads and the writes are coalesced.

#include "../blocks/shared.cuh"
#include "../blocks/target.cuh"

namespace bnscope::gpu::BNSCOPE_DEVICE_NS {

constexpr int kTransposeTile = 32;

template <class T>
__global__ void transpose_kernel(const T* src, T* dst, long long batches, long long rows,
                                 long long cols) {
  constexpr int kPitch = kTransposeTile + 1;
  __shared__ SharedArray<T, kTransposeTile * kPitch> tile;
  const long long tiles_r = (rows + kTransposeTile - 1) / kTransposeTile;
  const long long tiles_c = (cols + kTransposeTile - 1) / kTransposeTile;
  const long long tiles = batches * tiles_r * tiles_c;
  // The tile index is uniform across the block, so every thread meets both barriers.
  for (long long t = blockIdx.x; t < tiles; t += gridDim.x) {
    const long long b = t / (tiles_r * tiles_c);
    const long long r0 = (t / tiles_c) % tiles_r * kTransposeTile;
    const long long c0 = t % tiles_c * kTransposeTile;
    const T* s = src + b * rows * cols;
    T* d = dst + b * rows * cols;
    for (int k = threadIdx.y; k < kTransposeTile; k += blockDim.y) {
      const long long r = r0 + k, c = c0 + threadIdx.x;
      if (r < rows && c < cols) tile[k * kPitch + threadIdx.x] = s[r * cols + c];
    }
    __syncthreads();
    for (int k = threadIdx.y; k < kTransposeTile; k += blockDim.y) {
      const long long c = c0 + k, r = r0 + threadIdx.x;
      if (r < rows && c < cols) d[c * rows + r] = tile[threadIdx.x * kPitch + k];
    }
    __syncthreads();
  }
}

}  // namespace bnscope::gpu::BNSCOPE_DEVICE_NS
