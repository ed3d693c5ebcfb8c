#pragma once
// The phases a run of backend cudnn makes, in the order it times them, each with its description
// and byte model (Backend::phase_plan): the upload, TensorFlow's NHWC-to-NCHW transposes where
// cuDNN does not take the data as it is (cudnn_takes_nhwc), the cuDNN call, the transpose back and
// the download. Plain C++, so the rules are tested without a device.

#include <vector>

#include "backends/backend.h"
#include "ops/prepared.h"

namespace bnscope::gpu {

// For the ops cudnn runs through cuDNN (training grads, forwards); persistent: the run asks for
// CUDNN_BATCHNORM_SPATIAL_PERSISTENT (TF_USE_CUDNN_BATCHNORM_SPATIAL_PERSISTENT). A V3 grad whose
// reserve_space_3 is smaller than this cuDNN's reserve space falls back to the legacy call at run
// time, a phase this plan names by the Ex call TensorFlow's rule picks.
std::vector<PhaseInfo> cudnn_phases(const Prepared& p, bool persistent);

}  // namespace bnscope::gpu
