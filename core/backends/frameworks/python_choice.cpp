#include "backends/frameworks/python_choice.h"

#include <unistd.h>

#include <cstdlib>
#include <mutex>

#ifndef BNSCOPE_WORKER_DIR
#define BNSCOPE_WORKER_DIR ""
#endif
#ifndef BNSCOPE_WORKER_LENDING
#define BNSCOPE_WORKER_LENDING ""
#endif

namespace bnscope {
namespace {
std::mutex mu;
std::string chosen;
}  // namespace

void set_framework_python(std::string path) {
  std::lock_guard lock(mu);
  chosen = std::move(path);
}

std::string framework_python() {
  {
    std::lock_guard lock(mu);
    if (!chosen.empty()) return chosen;
  }
  if (const char* env = std::getenv("BNSCOPE_PYTHON"); env && *env) return env;
  return "python3";
}

std::string worker_package_dir() {
  if (const char* env = std::getenv("BNSCOPE_WORKER_DIR"); env && *env) return env;
  return BNSCOPE_WORKER_DIR;
}

std::string worker_lending_library() {
  std::string path = BNSCOPE_WORKER_LENDING;
  if (const char* env = std::getenv("BNSCOPE_WORKER_LENDING")) path = env;
  if (path.empty() || path == "0" || ::access(path.c_str(), R_OK) != 0) return {};
  return path;
}

}  // namespace bnscope
