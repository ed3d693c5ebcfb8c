// The one-pass elementwise launcher: inference y and the global-normalization forward, whose
// coefficients need no reduction (read x once, write y once: the 2-pass minimum).

#include <cuda_runtime.h>

#include "../cuda_check.h"
#include "../launch.h"
#include "elementwise.cuh"

namespace bnscope::gpu {

namespace {

template <class T, class Index>
void run_affine(const Plan& plan, const View& view, const ElementwiseLaunch& a, Stream s) {
  const DeviceView<Index> v{static_cast<Index>(view.outer), static_cast<Index>(view.channels),
                            static_cast<Index>(view.inner)};
  affine_kernel<T, Index><<<static_cast<unsigned>(plan.ew_grid), plan.ew_block, 0, s>>>(
      v, static_cast<const T*>(a.u), static_cast<const T*>(a.v), static_cast<T*>(a.out),
      static_cast<const acc_t<T>*>(a.coef));
  check_launch("affine_kernel");
}

template <class T>
void run_typed(const Plan& plan, const View& view, const ElementwiseLaunch& a, Stream s) {
  if (plan.index64)
    run_affine<T, long long>(plan, view, a, s);
  else
    run_affine<T, unsigned>(plan, view, a, s);
}

}  // namespace

void launch_elementwise(DType t, const Plan& plan, const View& view, const ElementwiseLaunch& a,
                        Stream s, PhaseHooks& hooks) {
  hooks.begin("affine");
  switch (t) {
    case DType::F16:
      run_typed<__half>(plan, view, a, s);
      break;
    case DType::BF16:
      run_typed<__nv_bfloat16>(plan, view, a, s);
      break;
    case DType::F32:
      run_typed<float>(plan, view, a, s);
      break;
    case DType::F64:
      run_typed<double>(plan, view, a, s);
      break;
  }
  hooks.end();
}

}  // namespace bnscope::gpu
