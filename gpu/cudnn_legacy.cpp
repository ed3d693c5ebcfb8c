// cuDNN 9 deprecates the batch-norm calls below in favour of its graph API; TensorFlow still
// makes exactly these calls, and bnscope reproduces TensorFlow. This file alone silences the
// deprecation warning.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

#include "cudnn_legacy.h"

#include <cstdlib>
#include <cstring>
#include <string>

#include "tensor/error.h"

namespace bnscope::gpu {

namespace {

cudnnBatchNormMode_t mode_of(bool persistent) {
  return persistent ? CUDNN_BATCHNORM_SPATIAL_PERSISTENT : CUDNN_BATCHNORM_SPATIAL;
}

cudnnDataType_t cudnn_type(DType t) {
  switch (t) {
    case DType::F16:
      return CUDNN_DATA_HALF;
    case DType::BF16:
      return CUDNN_DATA_BFLOAT16;
    case DType::F32:
      return CUDNN_DATA_FLOAT;
    case DType::F64:
      break;
  }
  return CUDNN_DATA_DOUBLE;
}

const float kOne = 1.0f, kZero = 0.0f;

}  // namespace

void check_cudnn(cudnnStatus_t status, const char* what) {
  if (status == CUDNN_STATUS_SUCCESS) return;
  const ErrorCode code = status == CUDNN_STATUS_ALLOC_FAILED    ? ErrorCode::ResourceExhausted
                         : status == CUDNN_STATUS_NOT_SUPPORTED ? ErrorCode::Unimplemented
                                                                : ErrorCode::Internal;
  throw Error(code, std::string(what) + " failed: " + cudnnGetErrorString(status));
}

CudnnHandle::CudnnHandle() {
  check_cudnn(cudnnCreate(&h_), "cudnnCreate");
}
CudnnHandle::~CudnnHandle() {
  if (h_) cudnnDestroy(h_);
}
void CudnnHandle::set_stream(Stream s) {
  check_cudnn(cudnnSetStream(h_, s), "cudnnSetStream");
}

BnTensors::BnTensors(DType t, bool channels_last, int n, int c, int h, int w) {
  try {
    check_cudnn(cudnnCreateTensorDescriptor(&data), "cudnnCreateTensorDescriptor");
    check_cudnn(cudnnCreateTensorDescriptor(&param), "cudnnCreateTensorDescriptor");
    check_cudnn(
        cudnnSetTensor4dDescriptor(data, channels_last ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW,
                                   cudnn_type(t), n, c, h, w),
        "cudnnSetTensor4dDescriptor");
    check_cudnn(cudnnDeriveBNTensorDescriptor(param, data, CUDNN_BATCHNORM_SPATIAL),
                "cudnnDeriveBNTensorDescriptor");
  } catch (...) {
    if (data) cudnnDestroyTensorDescriptor(data);
    if (param) cudnnDestroyTensorDescriptor(param);
    throw;
  }
}

BnTensors::~BnTensors() {
  if (data) cudnnDestroyTensorDescriptor(data);
  if (param) cudnnDestroyTensorDescriptor(param);
}

bool persistent_mode_requested() {
  static const bool on = [] {
    const char* v = std::getenv("TF_USE_CUDNN_BATCHNORM_SPATIAL_PERSISTENT");
    return v && (std::strcmp(v, "1") == 0 || std::strcmp(v, "true") == 0);
  }();
  return on;
}

std::size_t backward_ex_workspace_bytes(const CudnnHandle& h, bool persistent, const BnTensors& t) {
  std::size_t bytes = 0;
  check_cudnn(cudnnGetBatchNormalizationBackwardExWorkspaceSize(
                  h.get(), mode_of(persistent), CUDNN_BATCHNORM_OPS_BN, t.data, nullptr, t.data,
                  nullptr, t.data, t.param, nullptr, &bytes),
              "cudnnGetBatchNormalizationBackwardExWorkspaceSize");
  return bytes;
}

std::size_t forward_training_ex_workspace_bytes(const CudnnHandle& h, bool persistent,
                                                const BnTensors& t) {
  std::size_t bytes = 0;
  check_cudnn(cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(
                  h.get(), mode_of(persistent), CUDNN_BATCHNORM_OPS_BN, t.data, nullptr, t.data,
                  t.param, nullptr, &bytes),
              "cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize");
  return bytes;
}

std::size_t training_ex_reserve_bytes(const CudnnHandle& h, bool persistent, const BnTensors& t) {
  std::size_t bytes = 0;
  check_cudnn(cudnnGetBatchNormalizationTrainingExReserveSpaceSize(
                  h.get(), mode_of(persistent), CUDNN_BATCHNORM_OPS_BN, nullptr, t.data, &bytes),
              "cudnnGetBatchNormalizationTrainingExReserveSpaceSize");
  return bytes;
}

void batchnorm_backward(const CudnnHandle& h, bool persistent, bool ex, const BnTensors& t,
                        const BnBackward& a) {
  if (ex) {
    check_cudnn(
        cudnnBatchNormalizationBackwardEx(
            h.get(), mode_of(persistent), CUDNN_BATCHNORM_OPS_BN, &kOne, &kZero, &kOne, &kZero,
            t.data, a.x, nullptr, nullptr, t.data, a.dy, nullptr, nullptr, t.data, a.dx, t.param,
            a.scale, nullptr, a.dscale, a.doffset, a.epsilon, a.saved_mean, a.saved_inv_std,
            nullptr, a.workspace, a.workspace_bytes, a.reserve, a.reserve_bytes),
        "cudnnBatchNormalizationBackwardEx");
    return;
  }
  check_cudnn(cudnnBatchNormalizationBackward(h.get(), mode_of(persistent), &kOne, &kZero, &kOne,
                                              &kZero, t.data, a.x, t.data, a.dy, t.data, a.dx,
                                              t.param, a.scale, a.dscale, a.doffset, a.epsilon,
                                              a.saved_mean, a.saved_inv_std),
              "cudnnBatchNormalizationBackward");
}

void batchnorm_forward_training(const CudnnHandle& h, bool persistent, bool ex, const BnTensors& t,
                                const BnForward& a) {
  if (ex) {
    check_cudnn(cudnnBatchNormalizationForwardTrainingEx(
                    h.get(), mode_of(persistent), CUDNN_BATCHNORM_OPS_BN, &kOne, &kZero, t.data,
                    a.x, nullptr, nullptr, t.data, a.y, t.param, a.scale, a.offset, a.factor,
                    a.running_mean, a.running_var, a.epsilon, a.save_mean, a.save_inv_std, nullptr,
                    a.workspace, a.workspace_bytes, a.reserve, a.reserve_bytes),
                "cudnnBatchNormalizationForwardTrainingEx");
    return;
  }
  check_cudnn(cudnnBatchNormalizationForwardTraining(
                  h.get(), mode_of(persistent), &kOne, &kZero, t.data, a.x, t.data, a.y, t.param,
                  a.scale, a.offset, a.factor, a.running_mean, a.running_var, a.epsilon,
                  a.save_mean, a.save_inv_std),
              "cudnnBatchNormalizationForwardTraining");
}

void batchnorm_forward_inference(const CudnnHandle& h, const BnTensors& t, const BnForward& a) {
  check_cudnn(cudnnBatchNormalizationForwardInference(
                  h.get(), CUDNN_BATCHNORM_SPATIAL, &kOne, &kZero, t.data, a.x, t.data, a.y,
                  t.param, a.scale, a.offset, a.est_mean, a.est_var, a.epsilon),
              "cudnnBatchNormalizationForwardInference");
}

}  // namespace bnscope::gpu
