#include "ops/catalog.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace bnscope {

TEST(Catalog, HasTheEightOps) {
  EXPECT_EQ(op_catalog().size(), 8u);
}

// Registered kernels of recent TensorFlow, spec sections 2.1, 2.2, 3.1 and 3.6 ([K-new] columns).
TEST(Catalog, KernelDtypesFollowTheSpecTables) {
  using V = std::vector<DType>;
  const V fused_v1{DType::F32}, fused{DType::F16, DType::BF16, DType::F32};
  const V global_cpu{DType::F16, DType::F32, DType::F64}, global_gpu{DType::F16, DType::F32};
  const std::map<std::string, std::pair<V, V>> want = {
      {"FusedBatchNorm", {fused_v1, fused_v1}},
      {"FusedBatchNormV2", {fused, fused}},
      {"FusedBatchNormV3", {fused, fused}},
      {"FusedBatchNormGrad", {fused_v1, fused_v1}},
      {"FusedBatchNormGradV2", {fused, fused}},
      {"FusedBatchNormGradV3", {fused, fused}},
      {"BatchNormWithGlobalNormalization", {global_cpu, global_gpu}},
      {"BatchNormWithGlobalNormalizationGrad", {global_cpu, global_gpu}},
  };
  for (const OpSpec& op : op_catalog()) {
    const auto it = want.find(std::string(op.name));
    ASSERT_NE(it, want.end()) << op.name;
    EXPECT_EQ(op.cpu_types, it->second.first) << op.name;
    EXPECT_EQ(op.gpu_types, it->second.second) << op.name;
  }
}

TEST(Catalog, EveryInputHasItsRole) {
  const std::map<std::string, InputRole> want = {
      {"x", InputRole::Data},
      {"t", InputRole::Data},
      {"y_backprop", InputRole::UpstreamGradient},
      {"backprop", InputRole::UpstreamGradient},
      {"scale", InputRole::PerChannel},
      {"offset", InputRole::PerChannel},
      {"mean", InputRole::PerChannel},
      {"variance", InputRole::PerChannel},
      {"gamma", InputRole::PerChannel},
      {"beta", InputRole::PerChannel},
      {"m", InputRole::PerChannel},
      {"v", InputRole::PerChannel},
      {"reserve_space_1", InputRole::Reserve},
      {"reserve_space_2", InputRole::Reserve},
      {"reserve_space_3", InputRole::Reserve},
  };
  for (const OpSpec& op : op_catalog())
    for (const ArgSpec& a : op.inputs) {
      const auto it = want.find(std::string(a.name));
      ASSERT_NE(it, want.end()) << op.name << " " << a.name;
      EXPECT_EQ(a.role, it->second) << op.name << " " << a.name;
    }
}

TEST(Catalog, NamesByMeaning) {
  for (const OpSpec& op : op_catalog()) {
    const bool global = op.family == OpFamily::GlobalNorm;
    EXPECT_EQ(op.data_input(), global ? "t" : "x") << op.name;
    EXPECT_EQ(op.gradient_input(), !op.is_grad ? ""
                                   : global    ? "backprop"
                                               : "y_backprop")
        << op.name;
    EXPECT_EQ(op.scale_input, global ? "gamma" : "scale") << op.name;
    EXPECT_EQ(op.mean_input, global ? "m" : op.is_grad ? "reserve_space_1" : "mean") << op.name;
    EXPECT_EQ(op.variance_input, global       ? "v"
                                 : op.is_grad ? "reserve_space_2"
                                              : "variance")
        << op.name;
    EXPECT_EQ(op.epsilon_attr(), global ? "variance_epsilon" : "epsilon") << op.name;
    EXPECT_EQ(op.has_modes(), !global) << op.name;
    for (std::string_view n : {op.scale_input, op.mean_input, op.variance_input})
      EXPECT_GE(op.input_index(n), 0) << op.name << " " << n;
    // The data input fixes T: it is T-typed.
    EXPECT_EQ(op.inputs[static_cast<std::size_t>(op.input_index(op.data_input()))].type,
              ArgType::T);
  }
}

TEST(Catalog, TwoModesOneWordEach) {
  EXPECT_EQ(mode_name(true), "training");
  EXPECT_EQ(mode_name(false), "inference");
  EXPECT_EQ(parse_mode("training"), true);
  EXPECT_EQ(parse_mode("inference"), false);
  for (const char* other : {"frozen", "freeze", "train", "is_training=false", ""})
    EXPECT_FALSE(parse_mode(other).has_value()) << other;
}

}  // namespace bnscope
