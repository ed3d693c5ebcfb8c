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
      {{"x", ArgType::T, "input, 4-D (or 5-D for the 3-D formats)"},
       {"scale", s, "gamma, [C]"},
       {"offset", s, "beta, [C]"},
       {"mean", s, "population mean, [C]; may be empty in training with exponential_avg_factor=1"},
       {"variance", s, "population variance, [C]; may be empty like mean"}},
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
      {{"y_backprop", ArgType::T, "gradient of y, shape of x"},
       {"x", ArgType::T, "forward input, 4-D (or 5-D)"},
       {"scale", v == 1 ? ArgType::T : ArgType::U, "gamma, [C] (float for V2/V3)"},
       {"reserve_space_1", s, "training: batch mean; inference: population mean, [C]"},
       {"reserve_space_2", s,
        "training: batch variance (CPU) or inverse std (cuDNN); inference: population variance"}},
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
    op.inputs.push_back(
        {"reserve_space_3", ArgType::U, "forward's reserve_space_3; never validated"});
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
       {{"t", ArgType::T, "input, 4-D, channels last"},
        {"m", ArgType::T, "mean, [C]"},
        {"v", ArgType::T, "variance, [C]"},
        {"gamma", ArgType::T, "scale, [C]"},
        {"backprop", ArgType::T, "gradient of the result, shape of t"}},
       {{"dx", ArgType::T, "gradient of t"},
        {"dm", ArgType::T, "gradient of m"},
        {"dv", ArgType::T, "gradient of v"},
        {"db", ArgType::T, "gradient of beta"},
        {"dg", ArgType::T, "gradient of gamma (zeros without scale_after_normalization)"}},
       global_attrs(),
       {F16, F32, F64},
       {F16, F32},
       true,
       "gradient of the deprecated global batch normalization"});
  for (int v = 1; v <= 3; ++v) ops.push_back(fused_forward(v));
  ops.push_back({"BatchNormWithGlobalNormalization",
                 OpFamily::GlobalNorm,
                 false,
                 0,
                 "BatchNormWithGlobalNormalizationGrad",
                 {{"t", ArgType::T, "input, 4-D, channels last"},
                  {"m", ArgType::T, "mean, [C]"},
                  {"v", ArgType::T, "variance, [C]"},
                  {"beta", ArgType::T, "offset, [C]"},
                  {"gamma", ArgType::T, "scale, [C]"}},
                 {{"result", ArgType::T, "normalized output, shape of t"}},
                 global_attrs(),
                 {F16, F32, F64},
                 {F16, F32},
                 true,
                 "deprecated global batch normalization, forward"});
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
