#pragma once
// A plugin's shared library loaded into this process: dlopen, bnscope_plugin_init with the ABI's
// version checks, the declared kernels read by their struct_size, and supports()/run(). bnscope
// itself loads plugins only in the helper process (bnscope-plugin-host); the CLI's
// --plugin-in-process loads them here for debugging a kernel under gdb or a sanitizer.

#include <memory>
#include <string>
#include <vector>

#include "plugin/plugin_call.h"
#include "plugin/plugin_info.h"

namespace bnscope {

class PluginLibrary {
 public:
  // Throws Error(InvalidArgument) with one line naming the file: it cannot be opened, has no
  // bnscope_plugin_init, was built for a newer ABI (both versions named), refused this host, or
  // describes itself wrongly (no name, a kernel without run(), an op bnscope does not know).
  static std::unique_ptr<PluginLibrary> load(const std::string& path);
  ~PluginLibrary();
  PluginLibrary(const PluginLibrary&) = delete;
  PluginLibrary& operator=(const PluginLibrary&) = delete;

  const PluginInfo& info() const { return info_; }
  // "" when the kernel of call's op takes it (its supports(), when it has one); otherwise why not.
  std::string supports(const bnscope_call& call) const;
  // Throws Error(Internal) with the plugin's message when run() reports an error.
  void run(const bnscope_call& call) const;

 private:
  PluginLibrary() = default;
  struct Kernel {
    const bnscope_kernel* original = nullptr;  // what the plugin's functions are handed
    bnscope_kernel known{};                    // the members its struct_size covers
  };
  const Kernel& kernel(const std::string& op) const;

  void* handle_ = nullptr;
  void (*shutdown_)() = nullptr;
  PluginInfo info_;
  std::vector<Kernel> kernels_;
};

// The host side of the ABI handed to bnscope_plugin_init (log lines go to stderr).
const bnscope_host_api& plugin_host_api();

}  // namespace bnscope
