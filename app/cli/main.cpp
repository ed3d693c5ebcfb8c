// bnscope-cli: headless runs, diffs, profiles and reports.

#include <cstdio>
#include <string>
#include <vector>

#include "backends.h"
#include "command.h"
#include "problem_args.h"
#include "tensor/error.h"

namespace bnscope::cli {

namespace {
std::vector<Command>& table() {
  static std::vector<Command> t;
  return t;
}

void print_usage() {
  std::printf(
      "bnscope-cli: run, diff and profile TensorFlow's batch-norm gradient ops\n\n"
      "usage: bnscope-cli COMMAND [options]    (bnscope-cli COMMAND --help for details)\n\n"
      "commands:\n");
  for (const Command& c : commands())
    std::printf("  %-10s %s\n", std::string(c.name).c_str(), std::string(c.summary).c_str());
  std::printf("\n%s", bnscope::app::backends_help().c_str());
}
}  // namespace

void register_command(const Command& c) {
  table().push_back(c);
}
const std::vector<Command>& commands() {
  return table();
}

int guarded(std::string_view command, int (*f)(Args), Args args) {
  try {
    return f(args);
  } catch (const Error& e) {
    std::fprintf(stderr, "bnscope-cli %s: %s\n", std::string(command).c_str(), e.what());
    switch (e.code()) {
      case ErrorCode::InvalidArgument:
      case ErrorCode::ResourceExhausted:
        return kExitBadInput;
      case ErrorCode::Unavailable:
      case ErrorCode::Unimplemented:
        return kExitUnavailable;
      default:
        return kExitInternal;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bnscope-cli %s: internal error: %s\n", std::string(command).c_str(),
                 e.what());
    return kExitInternal;
  }
}

}  // namespace bnscope::cli

int main(int argc, char** argv) {
  using namespace bnscope::cli;
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    print_usage();
    return args.empty() ? kExitBadInput : kExitOk;
  }
  for (const Command& c : commands()) {
    if (c.name != args[0]) continue;
    for (std::size_t i = 1; i < args.size(); ++i)
      if (args[i] == "--help" || args[i] == "-h") {
        std::printf("%s\n", std::string(c.help).c_str());
        if (c.problem_flags) std::printf("\n%s", bnscope::app::problem_args_help());
        return kExitOk;
      }
    return guarded(c.name, c.run, Args(args).subspan(1));
  }
  std::fprintf(stderr, "bnscope-cli: unknown command '%s' (see bnscope-cli --help)\n",
               args[0].c_str());
  return kExitBadInput;
}
