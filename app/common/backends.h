#pragma once
// Adds the GPU backends to the registry, or names them as not built.

#include <string>
#include <vector>

namespace bnscope {
class Backend;
}

namespace bnscope::app {
void register_all_backends();

// Why the cuda and cudnn backends are missing from a build without them ("not built: no cuDNN
// (cudnn.h and libcudnn.so) at configure time"); empty in a build with them.
std::string gpu_not_built_reason();

// What `--help` and the app's About say of one registered backend.
struct BackendState {
  std::string name;
  std::string description;
  std::string unavailable;  // Backend::unavailable_reason: empty when it can run here
  std::string code_path;    // Backend::code_path: what it runs here (or would), where it says
};
// What b says of itself. Asking may take a while (a framework backend probes its Python and
// waits for a run in flight, a GPU backend starts the CUDA runtime), so a window asks off its UI
// thread. Starts no framework worker.
BackendState describe_backend(const Backend& b);
// Every registered backend, in the registry's order; registers them first.
std::vector<BackendState> backend_states();

// "backends:" and one line per registered backend: its name, what it is, and why it cannot run
// here when it cannot, else what it runs here (Backend::code_path) where it says. Registers them
// first.
std::string backends_help();
}  // namespace bnscope::app
