#pragma once
// The transport bnscope uses for every plugin: the library is loaded and run in a helper process
// (bnscope-plugin-host), never here, with tensors in shared memory (plugin_protocol.h). A helper
// that dies (a segfault, an abort, an out-of-bounds write), does not answer within the time limit,
// or is cancelled costs that one call: the error names the plugin, the signal, the function and
// the variant ("plugin my-kernel crashed: SIGSEGV in run() of FusedBatchNormGradV3 NHWC float16"),
// and the next call starts a fresh helper.

#include <chrono>
#include <memory>
#include <string>

#include "plugin/plugin_backend.h"

namespace bnscope {

// The helper program: $BNSCOPE_PLUGIN_HOST, else bnscope-plugin-host beside this executable (or
// in the build tree's app/plugin_host), else on PATH.
std::string plugin_host_program();

// The per-call time limit: $BNSCOPE_PLUGIN_TIMEOUT seconds (default 60). Throws Error naming the
// variable when it is not a positive number.
std::chrono::milliseconds plugin_call_limit();

// Starts the helper and has it load and describe the plugin. Throws Error(InvalidArgument) with
// the helper's one-line reason when the library does not load, and Error(Unavailable) when the
// helper cannot be started.
std::unique_ptr<PluginTransport> make_helper_transport(const std::string& path);

}  // namespace bnscope
