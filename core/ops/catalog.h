#pragma once
// The op catalog: one row per TensorFlow op bnscope reproduces, with each input's role, which
// input fixes T, the dtypes with CPU and GPU kernels and the names of the two modes. Validation,
// the CLI's flags and help, the GUI's forms, the backends and the parameterized tests all read
// this table; nothing else lists ops or re-derives what an input is.

#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "tensor/dtype.h"

namespace bnscope {

enum class OpFamily { Fused, GlobalNorm };

// T is the data type attr; U is the statistics type (float in every kernel TensorFlow registers).
enum class ArgType { T, U };

// What an input is to the op (outputs carry the default).
enum class InputRole {
  Data,              // x or t: its dtype is T, its layout the data layout
  UpstreamGradient,  // y_backprop or backprop: the gradient flowing in, shaped like the data
  PerChannel,        // scale/offset/mean/variance (gamma/beta/m/v): one value per channel
  Reserve,           // reserve_space_*: what the forward op saved for its gradient
};

struct ArgSpec {
  std::string_view name;
  ArgType type;
  std::string_view doc;
  InputRole role = InputRole::Data;
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

  // Per-channel inputs by meaning: scale or gamma; the mean and variance the op reads (mean/
  // variance, m/v, or the grad's reserve_space_1/2).
  std::string_view scale_input;
  std::string_view mean_input;
  std::string_view variance_input;

  const AttrSpec* attr(std::string_view n) const;
  int input_index(std::string_view n) const;  // -1 when absent
  int output_index(std::string_view n) const;
  bool has_attr(std::string_view n) const { return attr(n) != nullptr; }
  // The data input (x or t): it fixes T when no dtype is given.
  std::string_view data_input() const;
  // y_backprop or backprop; empty for the forward ops.
  std::string_view gradient_input() const;
  std::vector<std::string_view> inputs_with_role(InputRole role) const;
  // True for the ops with TensorFlow's is_training attr (the fused ops).
  bool has_modes() const { return has_attr("is_training"); }
  std::string_view epsilon_attr() const;  // epsilon or variance_epsilon
};

// The two modes, one word each wherever they are shown (CLI, app, JSON, HTML, CSV); the attr
// keeps TensorFlow's name is_training.
inline constexpr std::string_view kTrainingMode = "training";
inline constexpr std::string_view kInferenceMode = "inference";
inline constexpr std::string_view mode_name(bool is_training) {
  return is_training ? kTrainingMode : kInferenceMode;
}
// "training" -> true, "inference" -> false; nullopt otherwise.
std::optional<bool> parse_mode(std::string_view word);

std::span<const OpSpec> op_catalog();
const OpSpec* find_op(std::string_view name);  // nullptr when unknown
std::string op_names_joined(std::string_view sep = ", ");

// U resolves to float for V2/V3; FusedBatchNormGrad (V1) and the global ops use T throughout.
DType resolve_arg_type(const OpSpec& op, ArgType type, DType t);

}  // namespace bnscope
