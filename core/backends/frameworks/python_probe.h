#pragma once
// What a Python has, asked once per interpreter path without importing any framework (the
// worker's probe mode: importlib's find_spec), so listing backends costs tens of milliseconds,
// not TensorFlow's import.

#include <string>

namespace bnscope {

struct PythonProbe {
  std::string problem;     // non-empty: the Python could not be asked ("cannot start python3: ...")
  std::string executable;  // sys.executable, or the path as given when unknown
  bool numpy = false, tensorflow = false, torch = false;
};

const PythonProbe& probe_python(const std::string& python);

}  // namespace bnscope
