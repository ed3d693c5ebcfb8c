#pragma once
// Kernel plugins as backends: the libraries named by --plugin and those in the folders of
// BNSCOPE_PLUGIN_PATH, each loaded in its helper process (or in this one with
// --plugin-in-process) and added to the backend registry under the name it gives itself.

#include <span>
#include <string>
#include <vector>

namespace bnscope::app {

struct PluginFlags {
  std::vector<std::string> paths;  // --plugin PATH, in order
  bool in_process = false;         // --plugin-in-process
  std::vector<std::string> rest;   // every other argument, in order
};

// Takes --plugin PATH, --plugin=PATH and --plugin-in-process out of args (anywhere on the line).
// Throws Error(InvalidArgument) for --plugin without a path.
PluginFlags take_plugin_flags(std::span<const std::string> args);

// The *.so files in the folders of BNSCOPE_PLUGIN_PATH (':'-separated), sorted per folder. A
// folder that does not exist is skipped.
std::vector<std::string> plugin_path_libraries();

// Loads one plugin and registers its backend; returns its name. Throws Error naming the file:
// it does not load (plugin/plugin_library.h's reasons), or its name is one of bnscope's backends.
std::string load_plugin(const std::string& path, bool in_process);

// Registers every backend (register_all_backends), then flags.paths, then BNSCOPE_PLUGIN_PATH's
// libraries. A --plugin that does not load throws; one from BNSCOPE_PLUGIN_PATH is reported in
// `warnings` and skipped.
void load_plugins(const PluginFlags& flags, std::vector<std::string>& warnings);

// The plugins loaded so far: backend name and library path.
struct LoadedPluginEntry {
  std::string name, path;
};
const std::vector<LoadedPluginEntry>& loaded_plugins();

}  // namespace bnscope::app
