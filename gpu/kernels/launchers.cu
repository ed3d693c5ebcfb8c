// The launcher set of this target, handed to the shared host orchestration.

#include "launchers.cuh"

namespace bnscope::gpu::BNSCOPE_DEVICE_NS {

const KernelLaunchers& launchers() {
  static const KernelLaunchers l{launch_grad, launch_forward_training, launch_elementwise,
                                 launch_transpose};
  return l;
}

}  // namespace bnscope::gpu::BNSCOPE_DEVICE_NS
