#pragma once
// A slice of a tensor that is made in order and never held whole (sample's gradient input on its
// way into a file): the whole tensor's dtype and shape, and the slice's bytes, which are the
// first `bytes` bytes of `buffer` and start `offset` bytes into the whole tensor. A copy of the
// slice shares buffer's storage, so it stays allocated while a reader holds the copy.

#include <cstddef>

#include "tensor/tensor.h"

namespace bnscope {

struct TensorSlice {
  DType dtype = DType::F32;
  Shape shape;  // the whole tensor's
  std::size_t offset = 0;
  Tensor buffer;
  std::size_t bytes = 0;
};

}  // namespace bnscope
