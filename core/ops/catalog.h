#pragma once
// The op catalog: one row per TensorFlow op bnscope reproduces. Validation, the CLI's flags and
// help, the GUI's forms and the parameterized tests all read this table; nothing else lists ops.

#include <span>
#include <string_view>
#include <vector>

#include "tensor/dtype.h"

namespace bnscope {

enum class OpFamily { Fused, GlobalNorm };

// T is the data type attr; U is the statistics type (float in every kernel TensorFlow registers).
enum class ArgType { T, U };

struct ArgSpec {
  std::string_view name;
  ArgType type;
  std::string_view doc;
};

enum class AttrType { Float, Bool, String };

struct AttrSpec {
  std::string_view name;
  AttrType type;
  std::string_view default_value;         // TensorFlow's default, as text; empty when required
  std::vector<std::string_view> allowed;  // for strings; empty means any
  std::string_view doc;
  bool required() const { return default_value.empty(); }
};

struct OpSpec {
  std::string_view name;
  OpFamily family;
  bool is_grad;
  int version;                   // 1, 2, 3 for the fused ops; 0 for the global-normalization ops
  std::string_view counterpart;  // the grad of a forward op, the forward of a grad op
  std::vector<ArgSpec> inputs;
  std::vector<ArgSpec> outputs;
  std::vector<AttrSpec> attrs;
  std::vector<DType> cpu_types;  // T with a CPU kernel in recent TensorFlow
  std::vector<DType> gpu_types;  // T with a GPU kernel in recent TensorFlow
  bool removed_in_graph_v9;      // deprecated: kernel construction fails at GraphDef version >= 9
  std::string_view summary;

  const AttrSpec* attr(std::string_view n) const;
  int input_index(std::string_view n) const;  // -1 when absent
  int output_index(std::string_view n) const;
  bool has_attr(std::string_view n) const { return attr(n) != nullptr; }
};

std::span<const OpSpec> op_catalog();
const OpSpec* find_op(std::string_view name);  // nullptr when unknown
std::string op_names_joined(std::string_view sep = ", ");

// U resolves to float for V2/V3; FusedBatchNormGrad (V1) and the global ops use T throughout.
DType resolve_arg_type(const OpSpec& op, ArgType type, DType t);

}  // namespace bnscope
