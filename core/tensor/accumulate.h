#pragma once
// The type sums and per-channel math run in: float for the 16-bit formats and float32 (as
// TensorFlow's kernels do), double for float64. The primary template takes any storage type, so
// the GPU kernels' __half and __nv_bfloat16 map the same way as f16 and bf16.

namespace bnscope {

template <class T>
struct AccOf {
  using type = float;
};
template <>
struct AccOf<double> {
  using type = double;
};
template <class T>
using Acc = typename AccOf<T>::type;

}  // namespace bnscope
