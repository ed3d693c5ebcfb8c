#pragma once
// Backend "cudnn": the cuDNN calls TensorFlow's GPU kernels make (spec sections 2.1, 3.4, 6).

#include <memory>

#include "backends/backend.h"
#include "cudnn_dims.h"

namespace bnscope::gpu {

std::unique_ptr<Backend> make_cudnn_backend();

}  // namespace bnscope::gpu
