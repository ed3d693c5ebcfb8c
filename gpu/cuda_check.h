#pragma once
// Every CUDA runtime call goes through check_cuda: failures become bnscope::Error with the code
// the engine maps to exit statuses (Unavailable, ResourceExhausted, Internal); nothing aborts.

#include <cuda_runtime_api.h>

#include <string>

#include "tensor/error.h"

namespace bnscope::gpu {

ErrorCode cuda_error_code(cudaError_t e);
void check_cuda(cudaError_t e, const char* what);
// The error of the last kernel launch, if any.
void check_launch(const char* kernel);

}  // namespace bnscope::gpu
