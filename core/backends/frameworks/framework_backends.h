#pragma once
// The real frameworks as backends: tf (TensorFlow as it runs by default here), tf-eigen
// (TF_ENABLE_ONEDNN_OPTS=0), tf-onednn (=1), tf-xla (the raw op in tf.function(jit_compile=True)),
// tf-gpu, torch (PyTorch's aten kernels on the CPU) and torch-cuda. Each runs in a worker process
// of the chosen Python (python_choice.h), started on its first run and kept until bnscope ends.

#include <memory>
#include <vector>

#include "backends/backend.h"

namespace bnscope {

std::vector<std::unique_ptr<Backend>> make_framework_backends();

}  // namespace bnscope
