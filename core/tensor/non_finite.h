#pragma once
// NaN and Inf counts read from the exponent bits: the scan the input and output health notes use.

#include <cstdint>

#include "tensor/tensor.h"

namespace bnscope {

std::int64_t count_non_finite(const Tensor& t);

}  // namespace bnscope
