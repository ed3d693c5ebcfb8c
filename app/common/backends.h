#pragma once
// Adds the GPU backends to the registry, or names them as not built.

#include <string>

namespace bnscope::app {
void register_all_backends();
// "backends:" and one line per registered backend: its name, what it is, and why it cannot run
// here when it cannot, else what it runs here (Backend::code_path) where it says. Registers them
// first.
std::string backends_help();
}  // namespace bnscope::app
