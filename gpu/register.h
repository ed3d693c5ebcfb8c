#pragma once
// Adds the GPU backends ("cuda", "cudnn") to a registry. Available when the app links
// bnscope_gpu (which defines BNSCOPE_HAVE_GPU); each backend reports at run time why it cannot
// run (no device, old driver).

#include "backends/backend.h"

namespace bnscope::gpu {
void register_backends(BackendRegistry& r);
}
