#include "cudnn_phases.h"

#include <string>

#include "cudnn_dims.h"
#include "kernel_phases.h"
#include "ops/catalog.h"

namespace bnscope::gpu {

std::vector<PhaseInfo> cudnn_phases(const Prepared& p, bool persistent) {
  const bool grad = p.op->is_grad;
  const bool round_trip = p.channels_last && !cudnn_takes_nhwc(p, persistent);
  std::vector<PhaseInfo> phases;
  phases.push_back(upload_phase(p));
  const PhaseInfo to_nchw{"kernel:transpose",
                          "an NHWC tensor transposed to NCHW for cuDNN, as TensorFlow does", 2, 1};
  if (round_trip) {
    phases.push_back(to_nchw);
    if (grad) phases.push_back(to_nchw);
  }
  std::string call;
  const char* what = nullptr;
  int tensors = 2;
  if (grad) {
    // TensorFlow's rule: the Ex call for V3 whenever reserve_space_3 is not a scalar.
    const bool ex = p.op->version == 3 && p.in("reserve_space_3").rank() != 0;
    call = ex ? "cudnnBatchNormalizationBackwardEx" : "cudnnBatchNormalizationBackward";
    what = "cuDNN's backward: the channel sums, then dx";
    tensors = 3;
  } else if (p.is_training) {
    call = p.op->version == 3 ? "cudnnBatchNormalizationForwardTrainingEx"
                              : "cudnnBatchNormalizationForwardTraining";
    what = "cuDNN's training forward: the batch statistics, then y";
  } else {
    call = "cudnnBatchNormalizationForwardInference";
    what = "cuDNN's inference forward: y from the given statistics";
  }
  phases.push_back({"kernel:" + call, what, tensors, 0});
  if (round_trip)
    phases.push_back({"kernel:transpose",
                      "cuDNN's NCHW result transposed back to NHWC, as TensorFlow does", 2, 1});
  phases.push_back(download_phase(p));
  return phases;
}

}  // namespace bnscope::gpu
