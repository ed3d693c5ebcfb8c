#include "register.h"

#include "cuda_backend.h"
#include "cudnn_backend.h"

namespace bnscope::gpu {

void register_backends(BackendRegistry& r) {
  r.add(make_cuda_backend());
  r.add(make_cudnn_backend());
}

}  // namespace bnscope::gpu
