#pragma once
// One call of a plugin's kernel: what it is about (CallSpec, plain data that travels to the
// helper process as JSON) and the C structs the ABI hands the kernel (AbiCall), built in whichever
// process holds the tensors' memory.

#include <cstdint>
#include <string>
#include <vector>

#include "bnscope/plugin.h"
#include "io/json_value.h"
#include "ops/prepared.h"
#include "ops/result.h"

namespace bnscope {

struct CallTensor {
  std::string name;
  DType dtype = DType::F32;
  Shape shape;
  std::size_t nbytes() const {
    return static_cast<std::size_t>(num_elements(shape)) * dtype_size(dtype);
  }
};

struct CallSpec {
  std::string op;
  std::string variant;  // "FusedBatchNormGradV3 NHWC float16", for messages
  DType t = DType::F32, u = DType::F32;
  std::int32_t layout = BNSCOPE_LAYOUT_NHWC;
  std::int32_t mode = BNSCOPE_MODE_TRAINING;
  std::int32_t convention = BNSCOPE_RESERVE_VARIANCE;
  std::int32_t scale_after_normalization = 1;
  double epsilon = 0, exponential_avg_factor = 1;
  std::int32_t threads = 0;
  std::vector<CallTensor> inputs;   // catalog order
  std::vector<CallTensor> outputs;  // TensorFlow's order, as allocate_outputs made them
};

// The outputs with the shapes and dtypes allocate_outputs gives them.
CallSpec make_call_spec(const Prepared& p, int threads);

JsonValue call_spec_json(const CallSpec& c);
CallSpec call_spec_from_json(const JsonValue& v);  // throws Error for a malformed message

// The ABI's structs for one call; the data pointers are the caller's (nullptr for supports()).
class AbiCall {
 public:
  // device: where the data pointers point (BNSCOPE_DEVICE_*); stream: a CUDA plugin's stream.
  AbiCall(const CallSpec& spec, const std::vector<void*>& input_data,
          const std::vector<void*>& output_data, std::int32_t device = BNSCOPE_DEVICE_CPU,
          void* stream = nullptr);
  AbiCall(const AbiCall&) = delete;
  AbiCall& operator=(const AbiCall&) = delete;
  const bnscope_call* get() const { return &call_; }

 private:
  std::vector<bnscope_tensor> tensors_;
  std::vector<const bnscope_tensor*> inputs_;
  std::vector<bnscope_tensor*> outputs_;
  bnscope_call call_{};
};

}  // namespace bnscope
