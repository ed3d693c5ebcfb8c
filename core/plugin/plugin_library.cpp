#include "plugin/plugin_library.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "ops/catalog.h"
#include "tensor/error.h"

namespace bnscope {

namespace {

void host_log(const bnscope_host_api*, const char* message) {
  std::fprintf(stderr, "plugin: %s\n", message ? message : "");
}

std::string text_of(const char* s) {
  return s ? std::string(s) : std::string();
}

bool good_name(const std::string& n) {
  return !n.empty() && n.size() <= 64 && std::all_of(n.begin(), n.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == '.';
  });
}

// The members a struct of `size` bytes holds; the rest stay zero.
template <class T>
T read_prefix(const T* from) {
  T out{};
  std::memcpy(&out, from, std::min<std::size_t>(from->struct_size, sizeof(T)));
  return out;
}

}  // namespace

const bnscope_host_api& plugin_host_api() {
  static const bnscope_host_api api{sizeof(bnscope_host_api), BNSCOPE_PLUGIN_ABI_VERSION,
                                    BNSCOPE_VERSION, host_log, nullptr};
  return api;
}

std::unique_ptr<PluginLibrary> PluginLibrary::load(const std::string& path) {
  const std::string lead = "plugin " + path;
  std::unique_ptr<PluginLibrary> lib(new PluginLibrary);
  dlerror();
  lib->handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib->handle_) fail("cannot load " + lead + ": " + text_of(dlerror()));
  void* sym = dlsym(lib->handle_, "bnscope_plugin_init");
  if (!sym)
    fail(lead +
         " has no bnscope_plugin_init: not a bnscope plugin, or the function is not "
         "exported (declare it with BNSCOPE_PLUGIN_EXPORT from bnscope/plugin.h)");
  auto init = reinterpret_cast<bnscope_plugin_init_fn>(sym);

  bnscope_plugin plugin{};
  plugin.struct_size = sizeof(bnscope_plugin);
  plugin.abi_version = BNSCOPE_PLUGIN_ABI_VERSION;
  const std::int32_t status = init(&plugin_host_api(), &plugin);
  const std::string ours = std::to_string(BNSCOPE_PLUGIN_ABI_VERSION);
  if (plugin.abi_version > BNSCOPE_PLUGIN_ABI_VERSION)
    fail(lead + " was built for plugin ABI " + std::to_string(plugin.abi_version) +
         ", newer than this bnscope's ABI " + ours +
         ": rebuild it against this bnscope's bnscope/plugin.h or update bnscope");
  if (status == BNSCOPE_ABI_MISMATCH)
    fail(lead + " (plugin ABI " + std::to_string(plugin.abi_version) +
         ") refused this bnscope's ABI " + ours);
  if (status != BNSCOPE_OK) fail(lead + ": bnscope_plugin_init returned " + std::to_string(status));
  if (plugin.abi_version == 0)
    fail(lead + " did not say which plugin ABI it was built for (call bnscope_plugin_begin first)");
  if (plugin.struct_size < offsetof(bnscope_plugin, kernels) + sizeof(plugin.kernels) ||
      plugin.struct_size > sizeof(bnscope_plugin))
    fail(lead + " declared a bnscope_plugin of " + std::to_string(plugin.struct_size) +
         " bytes; ABI " + std::to_string(plugin.abi_version) + " has at least " +
         std::to_string(offsetof(bnscope_plugin, kernels) + sizeof(plugin.kernels)));
  const bnscope_plugin known = read_prefix(&plugin);
  lib->shutdown_ = known.struct_size >= offsetof(bnscope_plugin, shutdown) + sizeof(known.shutdown)
                       ? known.shutdown
                       : nullptr;

  PluginInfo& info = lib->info_;
  info.path = path;
  info.name = text_of(known.name);
  info.description = text_of(known.description);
  info.version = text_of(known.version);
  info.device = known.device;
  info.abi_version = known.abi_version;
  if (!good_name(info.name))
    fail(lead + " has name '" + clip_for_message(info.name, 80) +
         "': expected 1 to 64 letters, digits, '-', '_' or '.'");
  if (info.device != BNSCOPE_DEVICE_CPU && info.device != BNSCOPE_DEVICE_CUDA)
    fail(lead + " has device " + std::to_string(info.device) +
         ": expected BNSCOPE_DEVICE_CPU or BNSCOPE_DEVICE_CUDA");
  if (known.num_kernels <= 0 || !known.kernels)
    fail(lead + " (" + info.name + ") declares no kernels");
  for (std::int32_t i = 0; i < known.num_kernels; ++i) {
    const bnscope_kernel* k = known.kernels[i];
    if (!k) fail(lead + ": kernel " + std::to_string(i) + " is NULL");
    Kernel kk{k, read_prefix(k)};
    const std::string op = text_of(kk.known.op);
    if (!find_op(op))
      fail(lead + ": kernel " + std::to_string(i) + " is for '" + clip_for_message(op, 80) +
           "', not an op bnscope knows (" + op_names_joined() + ")");
    if (!kk.known.run) fail(lead + ": kernel for " + op + " has no run()");
    info.kernels.push_back({op, kk.known.dtypes, kk.known.layouts, kk.known.modes,
                            kk.known.conventions, kk.known.supports != nullptr});
    lib->kernels_.push_back(kk);
  }
  return lib;
}

PluginLibrary::~PluginLibrary() {
  if (shutdown_) shutdown_();
  if (handle_) dlclose(handle_);
}

const PluginLibrary::Kernel& PluginLibrary::kernel(const std::string& op) const {
  for (const Kernel& k : kernels_)
    if (op == k.known.op) return k;
  throw Error(ErrorCode::Unimplemented, "plugin " + info_.name + " has no kernel for " + op);
}

std::string PluginLibrary::supports(const bnscope_call& call) const {
  const Kernel& k = kernel(text_of(call.op));
  if (!k.known.supports) return {};
  char why[512] = {0};
  const std::int32_t s = k.known.supports(k.original, &call, why, sizeof why);
  why[sizeof why - 1] = 0;
  if (s == BNSCOPE_OK) return {};
  return "plugin " + info_.name + ": " + (why[0] ? std::string(why) : "not supported");
}

void PluginLibrary::run(const bnscope_call& call) const {
  const Kernel& k = kernel(text_of(call.op));
  char message[1024] = {0};
  const std::int32_t s = k.known.run(k.original, &call, message, sizeof message);
  message[sizeof message - 1] = 0;
  if (s != BNSCOPE_OK)
    throw Error(ErrorCode::Internal,
                "plugin " + info_.name + " failed: " +
                    (message[0] ? std::string(message) : "run() returned " + std::to_string(s)));
}

}  // namespace bnscope
