#pragma once
// The conformance command's body, shared with `selftest --backend NAME` for non-GPU backends.

#include <string>

#include "command.h"

namespace bnscope::cli {
int run_conformance_command(const std::string& command, Args args);
}  // namespace bnscope::cli
