#pragma once
// cpu-reference: straightforward loops with float64 accumulation; the oracle for every other
// backend.

#include <memory>

#include "backends/backend.h"

namespace bnscope {
std::unique_ptr<Backend> make_cpu_reference_backend();
}
