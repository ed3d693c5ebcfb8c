#pragma once
// A user's kernel plugin as a Backend. Where it runs is its transport: the helper process
// (plugin_helper.h; what bnscope does) or this process (--plugin-in-process, for debugging the
// kernel under gdb or a sanitizer). Either way the backend checks the plugin's declared masks,
// asks its supports() where it has one, allocates TensorFlow's outputs and times run().

#include <memory>
#include <string>

#include "backends/backend.h"
#include "plugin/plugin_call.h"
#include "plugin/plugin_info.h"

namespace bnscope {

class PluginTransport {
 public:
  virtual ~PluginTransport() = default;
  virtual const PluginInfo& info() const = 0;
  // "in the helper process bnscope-plugin-host", "in bnscope's own process"
  virtual std::string where() const = 0;
  // "" or why the plugin's supports() refuses the call (data pointers are NULL there).
  virtual std::string supports(const CallSpec& spec, const RunContext& ctx) = 0;
  // Runs the kernel on p's inputs into result's allocated outputs; the phases it timed:
  // "kernel:run" (the plugin's run() alone), and "upload"/"download" where tensors are copied.
  virtual std::vector<PhaseTiming> run(const CallSpec& spec, const Prepared& p, Result& result,
                                       const RunContext& ctx) = 0;
};

// The plugin loaded into this process.
std::unique_ptr<PluginTransport> make_in_process_transport(const std::string& path);

std::unique_ptr<Backend> make_plugin_backend(std::unique_ptr<PluginTransport> transport);

}  // namespace bnscope
