#include "backends/frameworks/python_probe.h"

#include <cstdlib>
#include <map>
#include <mutex>

#include "backends/frameworks/python_choice.h"
#include "ipc/json_channel.h"

namespace bnscope {

const PythonProbe& probe_python(const std::string& python) {
  static std::mutex mu;
  static std::map<std::string, PythonProbe> cache;
  std::lock_guard lock(mu);
  if (auto it = cache.find(python); it != cache.end()) return it->second;
  PythonProbe probe;
  probe.executable = python;
  try {
    ipc::ChildProcess child;
    const std::string dir = worker_package_dir();
    child.start({{python, "-m", "bnscope_worker", "probe"},
                 {{"PYTHONPATH",
                   dir + (std::getenv("PYTHONPATH") ? ":" + std::string(std::getenv("PYTHONPATH"))
                                                    : std::string())}},
                 "python probe of " + python});
    JsonValue ask = JsonValue::object();
    ask.add("cmd", JsonValue::of(std::string("probe")));
    ipc::send_json(child, ask, std::chrono::seconds(20));
    const JsonValue r = ipc::receive_json(child, std::chrono::seconds(60));
    probe.executable = r.at("python").string;
    probe.numpy = r.at("numpy").boolean;
    probe.tensorflow = r.at("tensorflow").boolean;
    probe.torch = r.at("torch").boolean;
  } catch (const Error& e) {
    probe.problem = e.what();
  }
  return cache.emplace(python, probe).first->second;
}

}  // namespace bnscope
