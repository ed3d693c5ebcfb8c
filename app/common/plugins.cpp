#include "plugins.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "backends.h"
#include "backends/backend.h"
#include "plugin/plugin_backend.h"
#include "plugin/plugin_helper.h"
#include "tensor/error.h"

namespace bnscope::app {

namespace {

std::vector<LoadedPluginEntry>& entries() {
  static std::vector<LoadedPluginEntry> e;
  return e;
}

bool is_builtin(std::string_view name) {
  for (const char* b : {"cpu-reference", "cpu", "cuda", "cudnn", "cuda-emu"})
    if (name == b) return true;
  return false;
}

}  // namespace

PluginFlags take_plugin_flags(std::span<const std::string> args) {
  PluginFlags f;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--plugin-in-process") {
      f.in_process = true;
    } else if (a == "--plugin") {
      if (i + 1 >= args.size() || args[i + 1].empty() || args[i + 1].rfind("--", 0) == 0)
        fail("--plugin: expected the path of a plugin library (PATH.so)");
      f.paths.push_back(args[++i]);
    } else if (a.rfind("--plugin=", 0) == 0) {
      if (a.size() == 9) fail("--plugin: expected the path of a plugin library (PATH.so)");
      f.paths.push_back(a.substr(9));
    } else {
      f.rest.push_back(a);
    }
  }
  return f;
}

std::vector<std::string> plugin_path_libraries() {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  const char* env = std::getenv("BNSCOPE_PLUGIN_PATH");
  if (!env || !*env) return out;
  std::string list(env);
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t end = std::min(list.find(':', start), list.size());
    const std::string dir = list.substr(start, end - start);
    start = end + 1;
    std::error_code ec;
    if (dir.empty() || !fs::is_directory(dir, ec)) continue;
    std::vector<std::string> found;
    for (const auto& e : fs::directory_iterator(dir, ec))
      if (e.path().extension() == ".so" && e.is_regular_file(ec))
        found.push_back(e.path().string());
    std::sort(found.begin(), found.end());
    out.insert(out.end(), found.begin(), found.end());
  }
  return out;
}

std::string load_plugin(const std::string& path, bool in_process) {
  register_all_backends();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    fail("plugin " + clip_for_message(path) +
         ": no such file (expected a plugin library, PATH.so)");
  const std::string abs = std::filesystem::absolute(path, ec).string();
  for (const LoadedPluginEntry& e : entries())
    if (e.path == abs) return e.name;  // named twice (a flag and BNSCOPE_PLUGIN_PATH)
  std::unique_ptr<Backend> b =
      make_plugin_backend(in_process ? make_in_process_transport(abs) : make_helper_transport(abs));
  const std::string name(b->name());
  if (is_builtin(name))
    fail("plugin " + abs + " calls itself '" + name + "', the name of a bnscope backend");
  for (const LoadedPluginEntry& e : entries())
    if (e.name == name)
      fail("plugin " + abs + " calls itself '" + name + "', as " + e.path + " does already");
  BackendRegistry::instance().add(std::move(b));
  entries().push_back({name, abs});
  return name;
}

void load_plugins(const PluginFlags& flags, std::vector<std::string>& warnings) {
  register_all_backends();
  for (const std::string& p : flags.paths) load_plugin(p, flags.in_process);
  for (const std::string& p : plugin_path_libraries()) try {
      load_plugin(p, flags.in_process);
    } catch (const Error& e) {
      warnings.push_back(std::string(e.what()) + " (from BNSCOPE_PLUGIN_PATH; skipped)");
    }
}

const std::vector<LoadedPluginEntry>& loaded_plugins() {
  return entries();
}

}  // namespace bnscope::app
