#pragma once
// Which Python the framework backends start their workers in, and where the worker's package
// (python/bnscope_worker) is. The Python: set_framework_python() (the CLI's --python, the app's
// preferences), else $BNSCOPE_PYTHON, else python3 on PATH.

#include <string>

namespace bnscope {

void set_framework_python(std::string path);  // empty: back to $BNSCOPE_PYTHON or python3
std::string framework_python();
// $BNSCOPE_WORKER_DIR, else the python/ folder of the source tree bnscope was built from.
std::string worker_package_dir();

}  // namespace bnscope
