#include "cuda_check.h"

namespace bnscope::gpu {

ErrorCode cuda_error_code(cudaError_t e) {
  switch (e) {
    case cudaErrorMemoryAllocation:
      return ErrorCode::ResourceExhausted;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorInvalidDevice:
    case cudaErrorDevicesUnavailable:
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorUnsupportedPtxVersion:
    case cudaErrorCallRequiresNewerDriver:
      return ErrorCode::Unavailable;
    default:
      return ErrorCode::Internal;
  }
}

void check_cuda(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  cudaGetLastError();  // clear the sticky-free error state so later calls start clean
  throw Error(cuda_error_code(e), std::string(what) + " failed: " + cudaGetErrorName(e) + " (" +
                                      cudaGetErrorString(e) + ")");
}

void check_launch(const char* kernel) {
  check_cuda(cudaGetLastError(), kernel);
}

}  // namespace bnscope::gpu
