#include "problem_args.h"

#include <filesystem>
#include <set>

#include "io/npy.h"
#include "io/npz.h"
#include "ops/problem_io.h"
#include "tensor/error.h"

namespace bnscope::app {

namespace {

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::pair<std::string, std::string> split_assignment(const std::string& flag,
                                                     const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    fail(flag + " expects NAME=VALUE, got '" + clip_for_message(text) + "'");
  return {text.substr(0, eq), text.substr(eq + 1)};
}

}  // namespace

Tensor read_tensor_arg(const std::string& spec) {
  // FILE.npz:MEMBER first: the member may itself end in .npy.
  const auto colon = spec.rfind(':');
  if (colon != std::string::npos && ends_with(spec.substr(0, colon), ".npz"))
    return read_npz_member(spec.substr(0, colon), spec.substr(colon + 1));
  std::error_code ec;
  if (std::filesystem::is_directory(spec, ec))
    fail("input file '" + clip_for_message(spec) +
         "' is a directory; expected PATH.npy or FILE.npz:MEMBER");
  if (ends_with(spec, ".npy")) return read_npy(spec);
  fail("input file '" + clip_for_message(spec) + "' must be PATH.npy or FILE.npz:MEMBER");
}

ProblemArgs parse_problem_args(std::span<const std::string> args) {
  ProblemArgs out;
  Problem& p = out.problem;
  auto value = [&](std::size_t& i) -> const std::string& {
    if (i + 1 >= args.size()) fail(args[i] + " expects a value");
    return args[++i];
  };
  // A value given twice is a mistake whichever was meant: refused, not the last one taken.
  std::set<std::string> given;
  const auto once = [&given](const std::string& what) {
    if (!given.insert(what).second) fail(what + " given twice");
  };
  // The op decides which attrs and inputs exist, so it is read before everything else.
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--problem" || args[i] == "--op") once(args[i]);
    if (args[i] == "--problem") {
      const std::string& path = value(i);
      p = load_problem(path);
      // The file keeps what it was saved with (the app reopens it to show the problem); a run
      // refuses it here, naming the file.
      for (const auto& [name, v] : p.attrs)
        if (const double* d = std::get_if<double>(&v))
          if (const std::string why = float32_attr_problem(name, *d); !why.empty())
            fail("--problem " + path + ": problem.json: " + why);
      out.op_given = out.inputs_given = true;
      out.source = std::filesystem::path(path).filename().string();
    } else if (args[i] == "--op") {
      p.op = value(i);
      if (!find_op(p.op))
        fail("--op: unknown op '" + clip_for_message(p.op) + "'; expected one of " +
             op_names_joined());
      out.op_given = true;
    }
  }
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--problem" || a == "--op") {
      ++i;
      continue;
    }
    // Anything else given beside a problem file changes what the file holds.
    const bool edits =
        a == "--input" || a == "--inputs" || a == "--attr" || a == "--dtype" || a == "--convention";
    if (edits && !out.source.empty() && !out.source.ends_with(" (edited)"))
      out.source += " (edited)";
    if (a == "--input") {
      auto [name, path] = split_assignment(a, value(i));
      once("input " + clip_for_message(name));
      const OpSpec* op = find_op(p.op);
      p.inputs[name] =
          op ? read_input_tensor(*op, name, path, [&file = path] { return read_tensor_arg(file); })
             : read_tensor_arg(path);
      out.inputs_given = true;
    } else if (a == "--inputs") {
      once(a);
      add_npz_inputs(p, value(i));
      if (out.source.empty()) out.source = std::filesystem::path(args[i]).filename().string();
      out.inputs_given = true;
    } else if (a == "--attr") {
      auto [key, text] = split_assignment(a, value(i));
      once("--attr " + clip_for_message(key));  // a problem file's value may be overridden once
      p.set_attr(key, text);
    } else if (a == "--dtype") {
      once(a);
      const std::string& t = value(i);
      p.dtype = parse_dtype(t);
      if (!p.dtype)
        fail("--dtype expects float16, bfloat16, float32 or float64, got '" + clip_for_message(t) +
             "'");
    } else if (a == "--convention") {
      once(a);
      const std::string& c = value(i);
      auto conv = parse_convention(c);
      if (!conv)
        fail("--convention expects variance or inv_std, got '" + clip_for_message(c) + "'");
      p.convention = *conv;
    } else if (a == "--strict") {
      p.strict = true;
    } else {
      out.rest.push_back(a);
    }
  }
  return out;
}

const char* problem_args_help() {
  return "problem:\n"
         "  --op OP                  op name (bnscope-cli ops lists them); default "
         "FusedBatchNormGradV3\n"
         "  --input NAME=PATH.npy    an input by TensorFlow's argument name (also "
         "NAME=FILE.npz:MEMBER)\n"
         "  --inputs FILE.npz        every member whose name is an input of the op\n"
         "  --problem FILE.npz       a problem saved by bnscope (inputs and attrs)\n"
         "  --attr KEY=VALUE         an attr by TensorFlow's name (epsilon, data_format, "
         "is_training, ...)\n"
         "  --dtype T                T: float16, bfloat16, float32, float64 (default: dtype of x)\n"
         "  --convention C           what training-mode reserve_space_2 holds: variance "
         "(TensorFlow CPU,\n"
         "                           default) or inv_std (cuDNN, TensorFlow GPU)\n"
         "  --strict                 fail where TensorFlow would reject the problem\n"
         "Each flag with a value is given once (--input and --attr once per name); --attr\n"
         "overrides what a --problem file sets.\n";
}

}  // namespace bnscope::app
