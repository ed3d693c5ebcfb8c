#pragma once
// cpu: the fast, multithreaded backend (float32 accumulation for f16/bf16/f32, as TensorFlow).

#include <memory>

#include "backends/backend.h"

namespace bnscope {
std::unique_ptr<Backend> make_cpu_backend();
}
