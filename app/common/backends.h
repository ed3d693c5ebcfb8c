#pragma once
// Adds the GPU backends to the registry, or names them as not built.

namespace bnscope::app {
void register_all_backends();
}
