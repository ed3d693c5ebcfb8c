#pragma once
// Thin, checked wrappers over cuDNN's batch-norm API as TensorFlow calls it. cuDNN 9 marks these
// legacy calls deprecated; they are all in cudnn_legacy.cpp, the one file that silences that.

#include <cudnn.h>

#include <cstddef>

#include "launch.h"

namespace bnscope::gpu {

void check_cudnn(cudnnStatus_t status, const char* what);

class CudnnHandle {
 public:
  CudnnHandle();
  ~CudnnHandle();
  CudnnHandle(const CudnnHandle&) = delete;
  CudnnHandle& operator=(const CudnnHandle&) = delete;
  cudnnHandle_t get() const { return h_; }
  void set_stream(Stream s);

 private:
  cudnnHandle_t h_ = nullptr;
};

// The 4-D data descriptor (x, y, dy, dx) and the derived 1xCx1x1 parameter descriptor.
class BnTensors {
 public:
  BnTensors(DType t, bool channels_last, int n, int c, int h, int w);
  ~BnTensors();
  BnTensors(const BnTensors&) = delete;
  BnTensors& operator=(const BnTensors&) = delete;
  cudnnTensorDescriptor_t data = nullptr;
  cudnnTensorDescriptor_t param = nullptr;
};

// TF_USE_CUDNN_BATCHNORM_SPATIAL_PERSISTENT=1 selects the persistent mode (read once, as TF does).
bool persistent_mode_requested();

struct BnBackward {
  const void* x = nullptr;
  const void* dy = nullptr;
  void* dx = nullptr;
  const void* scale = nullptr;
  void* dscale = nullptr;
  void* doffset = nullptr;
  double epsilon = 0;
  const void* saved_mean = nullptr;
  const void* saved_inv_std = nullptr;
  void* workspace = nullptr;  // Ex only
  std::size_t workspace_bytes = 0;
  void* reserve = nullptr;  // Ex only
  std::size_t reserve_bytes = 0;
};

struct BnForward {
  const void* x = nullptr;
  void* y = nullptr;
  const void* scale = nullptr;
  const void* offset = nullptr;
  double epsilon = 0;
  double factor = 1;             // training: running-average factor
  void* running_mean = nullptr;  // training: in/out
  void* running_var = nullptr;
  void* save_mean = nullptr;
  void* save_inv_std = nullptr;
  void* workspace = nullptr;  // Ex only
  std::size_t workspace_bytes = 0;
  void* reserve = nullptr;  // Ex only
  std::size_t reserve_bytes = 0;
  const void* est_mean = nullptr;  // inference
  const void* est_var = nullptr;
};

std::size_t backward_ex_workspace_bytes(const CudnnHandle& h, bool persistent, const BnTensors& t);
std::size_t forward_training_ex_workspace_bytes(const CudnnHandle& h, bool persistent,
                                                const BnTensors& t);
std::size_t training_ex_reserve_bytes(const CudnnHandle& h, bool persistent, const BnTensors& t);

// alpha = 1, beta = 0 everywhere: outputs are overwritten, as in TensorFlow.
void batchnorm_backward(const CudnnHandle& h, bool persistent, bool ex, const BnTensors& t,
                        const BnBackward& a);
void batchnorm_forward_training(const CudnnHandle& h, bool persistent, bool ex, const BnTensors& t,
                                const BnForward& a);
void batchnorm_forward_inference(const CudnnHandle& h, const BnTensors& t, const BnForward& a);

}  // namespace bnscope::gpu
