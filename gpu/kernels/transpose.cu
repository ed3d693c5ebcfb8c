// The layout transpose TensorFlow's GPU kernels run around cuDNN (NHWC to NCHW and back). It moves
// bytes only, so it is instantiated per element size, not per dtype.

#include "../blocks/target.cuh"
// clang-format off
#include "launch_kernel.cuh"
#include "launchers.cuh"
#include "transpose.cuh"
// clang-format on

#include <algorithm>
#include <cstdint>

#include "tensor/error.h"

namespace bnscope::gpu::BNSCOPE_DEVICE_NS {

namespace {

template <class T>
void run_transpose(const void* src, void* dst, long long batches, long long rows, long long cols,
                   Stream s) {
  const long long tiles = batches * ((rows + kTransposeTile - 1) / kTransposeTile) *
                          ((cols + kTransposeTile - 1) / kTransposeTile);
  const auto grid = static_cast<unsigned>(std::min<long long>(tiles, 1 << 20));
  launch_kernel("transpose_kernel", transpose_kernel<T>, dim3(grid), dim3(kTransposeTile, 8), 0, s,
                static_cast<const T*>(src), static_cast<T*>(dst), batches, rows, cols);
}

}  // namespace

void launch_transpose(std::size_t element_bytes, const void* src, void* dst, std::int64_t batches,
                      std::int64_t rows, std::int64_t cols, Stream s, PhaseHooks& hooks) {
  if (batches <= 0 || rows <= 0 || cols <= 0) return;
  hooks.begin("transpose");
  switch (element_bytes) {
    case 2:
      run_transpose<std::uint16_t>(src, dst, batches, rows, cols, s);
      break;
    case 4:
      run_transpose<std::uint32_t>(src, dst, batches, rows, cols, s);
      break;
    case 8:
      run_transpose<std::uint64_t>(src, dst, batches, rows, cols, s);
      break;
    default:
      throw Error(ErrorCode::Internal,
                  "transpose of " + std::to_string(element_bytes) + "-byte elements");
  }
  hooks.end();
}

}  // namespace bnscope::gpu::BNSCOPE_DEVICE_NS
