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
// The output-lending library preloaded into each worker (python/bnscope_worker/native): the
// kernel writes its large outputs into bnscope's segments, and a re-run copies none.
// $BNSCOPE_WORKER_LENDING names another copy, or turns lending off when "0" or empty; else the one
// built beside bnscope. Empty when that file is not there: the worker copies every output.
std::string worker_lending_library();

}  // namespace bnscope
