// bnscope-cli: headless runs, diffs, profiles and reports.

#include <cstdio>
#include <string>
#include <vector>

#include "backends.h"
#include "backends/backend.h"
#include "backends/frameworks/python_choice.h"
#include "command.h"
#include "option_words.h"
#include "plugins.h"
#include "problem_args.h"
#include "report/report.h"
#include "tensor/error.h"
#include "tensor/memory_limit.h"

namespace bnscope::cli {

namespace {
std::vector<Command>& table() {
  static std::vector<Command> t;
  return t;
}

void print_usage(std::FILE* out) {
  std::fprintf(out,
               "bnscope-cli: run, diff and profile TensorFlow's batch-norm gradient ops\n\n"
               "usage: bnscope-cli COMMAND [options]    (bnscope-cli help COMMAND for details)\n"
               "       bnscope-cli --version\n\n"
               "commands:\n");
  for (const Command& c : commands())
    std::fprintf(out, "  %-10s %s\n", std::string(c.name).c_str(), std::string(c.summary).c_str());
  std::fprintf(out, "\n%s", bnscope::app::backends_help().c_str());
  std::fprintf(out,
               "\n--python PATH (any command): the Python the tf* and torch* backends run in "
               "(default: $BNSCOPE_PYTHON, else python3)\n");
}
void print_help(const Command& c) {
  std::printf("%s\n", std::string(c.help).c_str());
  if (c.problem_flags) std::printf("\n%s", bnscope::app::problem_args_help());
}

const Command* find_command(std::string_view name) {
  for (const Command& c : commands())
    if (c.name == name) return &c;
  return nullptr;
}

int unknown_command(const std::string& name) {
  std::fprintf(stderr, "bnscope-cli: unknown command '%s' (see bnscope-cli --help)\n",
               name.c_str());
  return kExitBadInput;
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
    check_memory_limit_variable();  // a limit set wrong is not silently the default
    BackendRegistry::instance().check_environment();
    return f(args);
  } catch (const Error& e) {
    std::fprintf(stderr, "bnscope-cli %s: %s\n", std::string(command).c_str(),
                 error_text(e, cli_option_words()).c_str());
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

namespace {
// --plugin PATH (repeatable) and --plugin-in-process may stand anywhere on the line; the plugins
// they name and BNSCOPE_PLUGIN_PATH's are backends of every command.
int load_plugins(std::vector<std::string>& args) {
  using namespace bnscope;
  try {
    const app::PluginFlags flags = app::take_plugin_flags(args);
    args = flags.rest;
    std::vector<std::string> warnings;
    app::load_plugins(flags, warnings);
    for (const std::string& w : warnings) std::fprintf(stderr, "bnscope-cli: %s\n", w.c_str());
  } catch (const Error& e) {
    std::fprintf(stderr, "bnscope-cli: %s\n", e.what());
    return e.code() == ErrorCode::Unavailable ? cli::kExitUnavailable : cli::kExitBadInput;
  }
  return cli::kExitOk;
}
}  // namespace

int main(int argc, char** argv) {
  using namespace bnscope::cli;
  std::vector<std::string> args(argv + 1, argv + argc);
  // --python PATH, for every command: the Python the framework backends' workers run in.
  for (std::size_t i = 0; i < args.size(); ++i)
    if (args[i] == "--python" || args[i].rfind("--python=", 0) == 0) {
      const bool joined = args[i] != "--python";
      if (!joined && i + 1 == args.size()) {
        std::fprintf(stderr, "bnscope-cli: --python expects a value (a Python executable)\n");
        return kExitBadInput;
      }
      bnscope::set_framework_python(joined ? args[i].substr(9) : args[i + 1]);
      args.erase(args.begin() + static_cast<long>(i),
                 args.begin() + static_cast<long>(i) + (joined ? 1 : 2));
      --i;
    }
  if (const int status = load_plugins(args); status != kExitOk) return status;
  if (!args.empty() && args[0] == "--version") {
    std::printf("bnscope-cli %s\n", std::string(bnscope::bnscope_version()).c_str());
    return kExitOk;
  }
  if (args.size() == 2 && args[0] == "help") {
    const Command* c = find_command(args[1]);
    if (!c) return unknown_command(args[1]);
    print_help(*c);
    return kExitOk;
  }
  if (args.empty()) {  // a usage error: the usage goes where errors go
    std::fprintf(stderr, "bnscope-cli: no command given\n");
    print_usage(stderr);
    return kExitBadInput;
  }
  if (args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    print_usage(stdout);
    return kExitOk;
  }
  const Command* c = find_command(args[0]);
  if (!c) return unknown_command(args[0]);
  for (std::size_t i = 1; i < args.size(); ++i)
    if (args[i] == "--help" || args[i] == "-h") {
      print_help(*c);
      return kExitOk;
    }
  return guarded(c->name, c->run, Args(args).subspan(1));
}
