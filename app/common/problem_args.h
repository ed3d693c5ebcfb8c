#pragma once
// The problem flags shared by bnscope-cli's commands and the bnscope GUI's command line.

#include <span>
#include <string>
#include <vector>

#include "ops/problem.h"

namespace bnscope::app {

struct ProblemArgs {
  Problem problem;
  bool op_given = false;          // --op, --problem or a problem file set the op
  bool inputs_given = false;      // at least one input came from the command line
  std::vector<std::string> rest;  // flags this parser does not know, in order, for the command
  // The file the problem came from, by name (--problem or --inputs), with " (edited)" when other
  // flags changed what it holds, as the app names its source (ProblemInfo::source); empty for a
  // problem built from flags alone.
  std::string source;
};

// Parses --op OP, --input NAME=PATH.npy | NAME=FILE.npz:MEMBER, --inputs FILE.npz,
// --problem FILE.npz, --attr KEY=VALUE, --dtype T, --convention variance|inv_std, --strict.
// Throws Error(InvalidArgument) naming the flag and what was expected.
ProblemArgs parse_problem_args(std::span<const std::string> args);

// Help text for the flags above, for the commands' --help.
const char* problem_args_help();

// Reads one tensor given as PATH.npy or FILE.npz:MEMBER.
Tensor read_tensor_arg(const std::string& spec);

}  // namespace bnscope::app
