#pragma once
// A Problem is everything needed to reproduce one run: op, attrs, named inputs and the
// reserve-space convention. It is what the CLI parses, the GUI edits and a .npz stores.

#include <map>
#include <optional>
#include <string>
#include <variant>

#include "ops/catalog.h"
#include "tensor/tensor.h"

namespace bnscope {

// What reserve_space_2 holds in training mode: the batch variance (TensorFlow's CPU kernels) or
// 1/sqrt(variance + epsilon) (cuDNN, and so TensorFlow on GPU).
enum class ReserveConvention { Variance, InvStd };
std::string_view convention_name(ReserveConvention c);  // "variance", "inv_std"
std::optional<ReserveConvention> parse_convention(std::string_view s);

using AttrValue = std::variant<double, bool, std::string>;

struct Problem {
  std::string op = "FusedBatchNormGradV3";
  std::map<std::string, AttrValue> attrs;  // unset attrs take TensorFlow's default
  std::map<std::string, Tensor> inputs;
  std::optional<DType> dtype;  // T; defaults to the dtype of x (t for the global ops)
  ReserveConvention convention = ReserveConvention::Variance;
  bool strict = false;  // notes that TensorFlow would reject become errors

  // Parses "KEY=VALUE" text per the catalog's attr type; throws Error naming the attr.
  void set_attr(const std::string& key, const std::string& text);
};

// The attr's value (or TensorFlow's default); throws when required and unset.
double attr_float(const Problem& p, std::string_view name);
bool attr_bool(const Problem& p, std::string_view name);
std::string attr_string(const Problem& p, std::string_view name);
// TensorFlow's float attrs are float32: "" when v is finite there, else why not (1e39 and
// 3.5e38 overflow to inf), naming the attr.
std::string float32_attr_problem(std::string_view name, double v);
// Round-trip text: numbers in the shortest form that reads back exactly (1e-45 stays 1e-45).
std::string attr_value_text(const AttrValue& v);
// true/false/1/0, case-insensitive: the one spelling rule for boolean attrs everywhere.
std::optional<bool> parse_bool_text(std::string_view text);

// A one-line description: op, shape and dtype of x, format, mode ("FusedBatchNormGradV3
// [2,3,4,5] float32 NHWC training"), as the CLI prints a case and a report is titled.
std::string describe_case(const Problem& p);

}  // namespace bnscope
