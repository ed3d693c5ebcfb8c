#pragma once
// The cpu backend's element conversions are the core's (tensor/element_convert.h), under the
// names its loops use.

#include "tensor/element_convert.h"

namespace bnscope::cpu {

using element::load;
using element::store;

}  // namespace bnscope::cpu
