#pragma once
// Backend "cuda": bnscope's own kernels (kernels/*.cu) for every op of the catalog.

#include <memory>
#include <string>
#include <string_view>

#include "backends/backend.h"

namespace bnscope::gpu {

std::unique_ptr<Backend> make_cuda_backend();

// Shared with the cudnn backend, which uses these kernels where TensorFlow does not use cuDNN.
std::string cuda_unsupported_reason(const Prepared& p);
void run_cuda_kernels(const Prepared& p, Result& result, std::string_view backend_name);

}  // namespace bnscope::gpu
