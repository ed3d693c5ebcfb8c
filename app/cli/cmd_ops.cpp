// bnscope-cli ops: the op catalog as a user reads it.

#include <cstdio>
#include <optional>
#include <string>

#include "backends.h"
#include "command.h"
#include "flag_reader.h"
#include "ops/catalog.h"
#include "tensor/error.h"

namespace bnscope::cli {

namespace {

// U is T where the catalog resolves it to T (V1, the global ops), float elsewhere.
std::string type_name(const OpSpec& op, ArgType t) {
  const bool follows_t = resolve_arg_type(op, ArgType::U, DType::F16) == DType::F16;
  return t == ArgType::T || follows_t ? "T" : "float";
}

std::string dtypes(const std::vector<DType>& ts) {
  std::string s;
  for (DType t : ts) s += (s.empty() ? "" : ", ") + std::string(tf_dtype_name(t));
  return s;
}

void print_op(const OpSpec& op) {
  std::printf("%s%s\n  %s\n", std::string(op.name).c_str(),
              op.removed_in_graph_v9 ? "  (deprecated: removed at GraphDef version 9)" : "",
              std::string(op.summary).c_str());
  std::printf("  inputs:\n");
  for (const ArgSpec& a : op.inputs)
    std::printf("    %-18s %-6s %s\n", std::string(a.name).c_str(), type_name(op, a.type).c_str(),
                std::string(a.doc).c_str());
  std::printf("  attrs:\n");
  for (const AttrSpec& a : op.attrs) {
    std::string def = a.required() ? "required" : "default " + std::string(a.default_value);
    std::string allowed;
    for (auto v : a.allowed) allowed += (allowed.empty() ? " {" : ", ") + std::string(v);
    if (!allowed.empty()) allowed += "}";
    std::printf("    %-26s %-10s%s  %s\n", std::string(a.name).c_str(), def.c_str(),
                allowed.c_str(), std::string(a.doc).c_str());
  }
  std::printf("  outputs:\n");
  for (const ArgSpec& a : op.outputs)
    std::printf("    %-18s %-6s %s\n", std::string(a.name).c_str(), type_name(op, a.type).c_str(),
                std::string(a.doc).c_str());
  std::printf("  T on CPU: %s; on GPU: %s\n\n", dtypes(op.cpu_types).c_str(),
              dtypes(op.gpu_types).c_str());
}

int run(Args args) {
  // The grammar is "nothing or --op OP": anything else, a second --op included, is reported
  // with the first argument.
  const auto usage = [&](const std::string&) {
    return "ops takes no arguments other than --op OP, got '" + args[0] + "'";
  };
  std::optional<std::string> only;
  FlagReader("ops")
      .value("--op",
             [&](const std::string& name) {
               if (only) fail(usage(name));
               only = name;
             })
      .bad_argument(usage)
      .read(args);
  if (!only) {
    for (const OpSpec& op : op_catalog()) print_op(op);
    std::printf("%s", app::backends_help().c_str());
    return kExitOk;
  }
  const OpSpec* op = find_op(*only);
  if (!op) fail("--op: unknown op '" + *only + "'; expected one of " + op_names_joined());
  print_op(*op);
  return kExitOk;
}

const CommandRegistration reg{
    {"ops", "list the ops: inputs, attrs with TensorFlow's defaults, outputs, dtypes",
     "usage: bnscope-cli ops [--op OP]\n\n"
     "Lists every op bnscope runs (or one), with TensorFlow's argument and attr names,\n"
     "defaults, allowed values, output names and the dtypes TensorFlow registers, then the\n"
     "backends that run them.",
     run}};

}  // namespace
}  // namespace bnscope::cli
