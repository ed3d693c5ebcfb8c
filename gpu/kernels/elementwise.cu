// The one-pass elementwise launcher: inference y and the global-normalization forward, whose
// coefficients need no reduction (read x once, write y once: the 2-pass minimum).

#include "../blocks/target.cuh"
// clang-format off
#include "elementwise.cuh"
#include "launch_kernel.cuh"
#include "launchers.cuh"
// clang-format on

namespace bnscope::gpu::BNSCOPE_DEVICE_NS {

namespace {

template <class T, class Index>
void run_affine(const Plan& plan, const View& view, const ElementwiseLaunch& a, Stream s) {
  const DeviceView<Index> v{static_cast<Index>(view.outer), static_cast<Index>(view.channels),
                            static_cast<Index>(view.inner)};
  launch_kernel("affine_kernel", affine_kernel<T, Index>, dim3(static_cast<unsigned>(plan.ew_grid)),
                dim3(static_cast<unsigned>(plan.ew_block)), 0, s, v, a.u, a.v, a.out, a.coef);
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

}  // namespace bnscope::gpu::BNSCOPE_DEVICE_NS
