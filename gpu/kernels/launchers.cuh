#pragma once
// The launchers each .cu file defines, in the namespace of the target being built.

#include "../blocks/target.cuh"
#include "../launch.h"

namespace bnscope::gpu::BNSCOPE_DEVICE_NS {

void launch_grad(DType t, const Plan& plan, const View& view, const GradLaunch& a, Stream s,
                 PhaseHooks& hooks);
void launch_forward_training(DType t, const Plan& plan, const View& view,
                             const ForwardTrainingLaunch& a, Stream s, PhaseHooks& hooks);
void launch_elementwise(DType t, const Plan& plan, const View& view, const ElementwiseLaunch& a,
                        Stream s, PhaseHooks& hooks);
void launch_transpose(std::size_t element_bytes, const void* src, void* dst, std::int64_t batches,
                      std::int64_t rows, std::int64_t cols, Stream s, PhaseHooks& hooks);

}  // namespace bnscope::gpu::BNSCOPE_DEVICE_NS
