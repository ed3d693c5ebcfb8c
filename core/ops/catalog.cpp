#include "ops/catalog.h"

#include <algorithm>
#include <string>

namespace bnscope {

namespace {

constexpr DType F16 = DType::F16, BF16 = DType::BF16, F32 = DType::F32, F64 = DType::F64;

AttrSpec epsilon_attr() {
  return {"epsilon", AttrType::Float, "0.0001", {}, "added to the variance before rsqrt"};
}
AttrSpec format_attr(int version) {
  if (version == 3)
    return {"data_format",
            AttrType::String,
            "NHWC",
            {"NHWC", "NCHW", "NDHWC", "NCDHW"},
            "layout of x and y_backprop"};
  return {"data_format", AttrType::String, "NHWC", {"NHWC", "NCHW"}, "layout of x and y_backprop"};
}
AttrSpec training_attr() {
  return {"is_training",
          AttrType::Bool,
          "true",
          {},
          "true: reserve spaces hold batch statistics; false: population mean and variance"};
}
AttrSpec avg_factor_attr() {
  return {"exponential_avg_factor",
          AttrType::Float,
          "1.0",
          {},
          "running-average factor for batch_mean/batch_variance"};
}

OpSpec fused_forward(int v) {
  const ArgType s = v == 1 ? ArgType::T : ArgType::U;
  OpSpec op{
      v == 1   ? "FusedBatchNorm"
      : v == 2 ? "FusedBatchNormV2"
               : "FusedBatchNormV3",
      OpFamily::Fused,
      false,
      v,
      v == 1   ? "FusedBatchNormGrad"
      : v == 2 ? "FusedBatchNormGradV2"
               : "FusedBatchNormGradV3",
      {{"x", ArgType::T, "input, 4-D (or 5-D for the 3-D formats)", InputRole::Data},
       {"scale", s, "gamma, [C]", InputRole::PerChannel},
       {"offset", s, "beta, [C]", InputRole::PerChannel},
       {"mean", s, "population mean, [C]; may be empty in training with exponential_avg_factor=1",
        InputRole::PerChannel},
       {"variance", s, "population variance, [C]; may be empty like mean", InputRole::PerChannel}},
      {{"y", ArgType::T, "normalized output, shape of x"},
       {"batch_mean", s, "batch mean (or running blend), [C]"},
       {"batch_variance", s, "Bessel-corrected batch variance (or running blend), [C]"},
       {"reserve_space_1", s, "saved mean, [C]"},
       {"reserve_space_2", s, "saved variance (CPU) or inverse std (cuDNN), [C]"}},
      {epsilon_attr(), avg_factor_attr(), format_attr(v), training_attr()},
      v == 1 ? std::vector<DType>{F32} : std::vector<DType>{F16, BF16, F32},
      v == 1 ? std::vector<DType>{F32} : std::vector<DType>{F16, BF16, F32},
      false,
      "fused batch normalization, forward"};
  if (v == 3) op.outputs.push_back({"reserve_space_3", ArgType::U, "backend-private, [] on CPU"});
  op.scale_input = "scale";
  op.mean_input = "mean";
  op.variance_input = "variance";
  return op;
}

OpSpec fused_grad(int v) {
  const ArgType s = v == 1 ? ArgType::T : ArgType::U;
  OpSpec op{
      v == 1   ? "FusedBatchNormGrad"
      : v == 2 ? "FusedBatchNormGradV2"
               : "FusedBatchNormGradV3",
      OpFamily::Fused,
      true,
      v,
      v == 1   ? "FusedBatchNorm"
      : v == 2 ? "FusedBatchNormV2"
               : "FusedBatchNormV3",
      {{"y_backprop", ArgType::T, "gradient of y, shape of x", InputRole::UpstreamGradient},
       {"x", ArgType::T, "forward input, 4-D (or 5-D)", InputRole::Data},
       {"scale", v == 1 ? ArgType::T : ArgType::U, "gamma, [C] (float for V2/V3)",
        InputRole::PerChannel},
       {"reserve_space_1", s, "training: batch mean; inference: population mean, [C]",
        InputRole::Reserve},
       {"reserve_space_2", s,
        "training: batch variance (CPU) or inverse std (cuDNN); inference: population variance",
        InputRole::Reserve}},
      {{"x_backprop", ArgType::T, "gradient of x"},
       {"scale_backprop", s, "gradient of scale, [C]"},
       {"offset_backprop", s, "gradient of offset, [C]"},
       {v == 3 ? "reserve_space_4" : "reserve_space_3", s, "placeholder, shape [0]"},
       {v == 3 ? "reserve_space_5" : "reserve_space_4", s, "placeholder, shape [0]"}},
      {epsilon_attr(), format_attr(v), training_attr()},
      v == 1 ? std::vector<DType>{F32} : std::vector<DType>{F16, BF16, F32},
      v == 1 ? std::vector<DType>{F32} : std::vector<DType>{F16, BF16, F32},
      false,
      "gradient of fused batch normalization"};
  if (v == 3)
    op.inputs.push_back({"reserve_space_3", ArgType::U,
                         "forward's reserve_space_3; never validated", InputRole::Reserve});
  op.scale_input = "scale";
  op.mean_input = "reserve_space_1";
  op.variance_input = "reserve_space_2";
  return op;
}

std::vector<AttrSpec> global_attrs() {
  return {{"variance_epsilon", AttrType::Float, "", {}, "added to v before rsqrt (required)"},
          {"scale_after_normalization",
           AttrType::Bool,
           "",
           {},
           "whether gamma multiplies the result (required)"}};
}

std::vector<OpSpec> build() {
  std::vector<OpSpec> ops;
  for (int v = 1; v <= 3; ++v) ops.push_back(fused_grad(v));
  ops.push_back(
      {"BatchNormWithGlobalNormalizationGrad",
       OpFamily::GlobalNorm,
       true,
       0,
       "BatchNormWithGlobalNormalization",
       {{"t", ArgType::T, "input, 4-D, channels last", InputRole::Data},
        {"m", ArgType::T, "mean, [C]", InputRole::PerChannel},
        {"v", ArgType::T, "variance, [C]", InputRole::PerChannel},
        {"gamma", ArgType::T, "scale, [C]", InputRole::PerChannel},
        {"backprop", ArgType::T, "gradient of the result, shape of t",
         InputRole::UpstreamGradient}},
       {{"dx", ArgType::T, "gradient of t"},
        {"dm", ArgType::T, "gradient of m"},
        {"dv", ArgType::T, "gradient of v"},
        {"db", ArgType::T, "gradient of beta"},
        {"dg", ArgType::T, "gradient of gamma (zeros without scale_after_normalization)"}},
       global_attrs(),
       {F16, F32, F64},
       {F16, F32},
       true,
       "gradient of the deprecated global batch normalization",
       "gamma",
       "m",
       "v"});
  for (int v = 1; v <= 3; ++v) ops.push_back(fused_forward(v));
  ops.push_back({"BatchNormWithGlobalNormalization",
                 OpFamily::GlobalNorm,
                 false,
                 0,
                 "BatchNormWithGlobalNormalizationGrad",
                 {{"t", ArgType::T, "input, 4-D, channels last", InputRole::Data},
                  {"m", ArgType::T, "mean, [C]", InputRole::PerChannel},
                  {"v", ArgType::T, "variance, [C]", InputRole::PerChannel},
                  {"beta", ArgType::T, "offset, [C]", InputRole::PerChannel},
                  {"gamma", ArgType::T, "scale, [C]", InputRole::PerChannel}},
                 {{"result", ArgType::T, "normalized output, shape of t"}},
                 global_attrs(),
                 {F16, F32, F64},
                 {F16, F32},
                 true,
                 "deprecated global batch normalization, forward",
                 "gamma",
                 "m",
                 "v"});
  return ops;
}

template <class Vec>
int index_of(const Vec& v, std::string_view n) {
  for (std::size_t i = 0; i < v.size(); ++i)
    if (v[i].name == n) return static_cast<int>(i);
  return -1;
}

}  // namespace

const AttrSpec* OpSpec::attr(std::string_view n) const {
  const int i = index_of(attrs, n);
  return i < 0 ? nullptr : &attrs[static_cast<std::size_t>(i)];
}
int OpSpec::input_index(std::string_view n) const {
  return index_of(inputs, n);
}
int OpSpec::output_index(std::string_view n) const {
  return index_of(outputs, n);
}

std::string_view OpSpec::data_input() const {
  for (const ArgSpec& a : inputs)
    if (a.role == InputRole::Data) return a.name;
  return {};
}

std::string_view OpSpec::gradient_input() const {
  for (const ArgSpec& a : inputs)
    if (a.role == InputRole::UpstreamGradient) return a.name;
  return {};
}

std::vector<std::string_view> OpSpec::inputs_with_role(InputRole role) const {
  std::vector<std::string_view> names;
  for (const ArgSpec& a : inputs)
    if (a.role == role) names.push_back(a.name);
  return names;
}

std::string_view OpSpec::epsilon_attr() const {
  return has_attr("epsilon") ? "epsilon" : "variance_epsilon";
}

std::optional<bool> parse_mode(std::string_view word) {
  if (word == kTrainingMode) return true;
  if (word == kInferenceMode) return false;
  return std::nullopt;
}

std::span<const OpSpec> op_catalog() {
  static const std::vector<OpSpec> ops = build();
  return ops;
}

const OpSpec* find_op(std::string_view name) {
  for (const OpSpec& op : op_catalog())
    if (op.name == name) return &op;
  return nullptr;
}

std::string op_names_joined(std::string_view sep) {
  std::string s;
  for (const OpSpec& op : op_catalog()) {
    if (!s.empty()) s += sep;
    s += op.name;
  }
  return s;
}

DType resolve_arg_type(const OpSpec& op, ArgType type, DType t) {
  if (type == ArgType::T || op.family == OpFamily::GlobalNorm || op.version == 1) return t;
  return DType::F32;
}

}  // namespace bnscope
