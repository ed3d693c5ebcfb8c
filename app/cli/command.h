#pragma once
// bnscope-cli commands register themselves: each cmd_<name>.cpp defines one Command and a
// static CommandRegistration, so adding a command touches one file.

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace bnscope::cli {

// Exit statuses shared by every command.
inline constexpr int kExitOk = 0;
inline constexpr int kExitMismatch = 1;     // diff: some outputs disagree; selftest: a case failed
inline constexpr int kExitBadInput = 2;     // malformed input, bad flags, invalid problem
inline constexpr int kExitUnavailable = 3;  // backend not built / no device / unsupported variant
inline constexpr int kExitInternal = 4;

using Args = std::span<const std::string>;

struct Command {
  std::string_view name;
  std::string_view summary;    // one line for `bnscope-cli --help`
  std::string_view help;       // full text for `bnscope-cli NAME --help`
  int (*run)(Args args);       // args exclude the command name; --help is handled before
  bool problem_flags = false;  // --help appends the shared problem flags
};

void register_command(const Command& c);
const std::vector<Command>& commands();

struct CommandRegistration {
  explicit CommandRegistration(const Command& c) { register_command(c); }
};

// Runs f, mapping engine errors to one line on stderr and the exit statuses above.
int guarded(std::string_view command, int (*f)(Args), Args args);

}  // namespace bnscope::cli
