// NaN and Inf on the cpu backend, for every catalog op, mode and CPU dtype (spec 9.6): a
// non-finite value in one channel of any input must give exactly the NaN/Inf pattern that
// cpu-reference gives, stay inside that channel, and a poisoned data input must show up.

#include <gtest/gtest.h>

#include <cmath>

#include "engine/engine.h"
#include "problem_maker.h"
#include "tensor/layout.h"

namespace bnscope::testing {
namespace {

enum class Cls { Finite, Nan, PosInf, NegInf };

Cls classify(double v) {
  if (std::isnan(v)) return Cls::Nan;
  if (std::isinf(v)) return v > 0 ? Cls::PosInf : Cls::NegInf;
  return Cls::Finite;
}

// Whether element i of an output of shape `shape` belongs to channel `c` of `x_shape`.
bool in_channel(const Shape& shape, const Shape& x_shape, bool channels_last, std::int64_t i,
                std::int64_t c) {
  if (shape.size() == 1) return i == c;
  if (shape != x_shape) return false;
  const ChannelView v = channel_view(shape, channels_last);
  return (i / v.inner) % v.channels == c;
}

bool is_data_input(std::string_view name) {
  return name == "x" || name == "y_backprop" || name == "t" || name == "backprop";
}

void check(const Problem& pb, const Shape& x_shape, bool channels_last, bool data_input,
           const std::string& what) {
  RunContext two;
  two.threads = 2;
  const Result got = run_problem(pb, "cpu", two);
  const Result want = run_problem(pb, "cpu-reference");
  ASSERT_EQ(got.outputs.size(), want.outputs.size()) << what;
  std::int64_t non_finite = 0;
  for (std::size_t k = 0; k < want.outputs.size(); ++k) {
    const OutputTensor& g = got.outputs[k];
    const OutputTensor& w = want.outputs[k];
    ASSERT_EQ(g.defined, w.defined) << what << " " << w.name;
    if (!w.defined) continue;
    EXPECT_EQ(g.non_finite, w.non_finite) << what << " " << w.name;
    non_finite += g.non_finite;
    const auto gv = g.tensor.to_doubles();
    const auto wv = w.tensor.to_doubles();
    ASSERT_EQ(gv.size(), wv.size()) << what << " " << w.name;
    for (std::size_t i = 0; i < wv.size(); ++i) {
      ASSERT_EQ(classify(gv[i]), classify(wv[i]))
          << what << " " << w.name << "[" << i << "]: cpu " << gv[i] << ", reference " << wv[i];
      if (in_channel(g.tensor.shape(), x_shape, channels_last, static_cast<std::int64_t>(i), 1)) {
        EXPECT_TRUE(std::isfinite(gv[i]))
            << what << " " << w.name << "[" << i << "] left channel 0";
      }
    }
  }
  if (data_input) {
    EXPECT_GT(non_finite, 0) << what << ": the poisoned input left no trace";
  }
}

class CpuNonFinite : public ::testing::TestWithParam<std::string> {};

TEST_P(CpuNonFinite, MatchesReferencePerInput) {
  const OpSpec* op = find_op(GetParam());
  ASSERT_NE(op, nullptr);
  int cases = 0;
  for (const std::string format : {"NHWC", "NCHW"})
    for (bool training : {true, false})
      for (DType dtype : op->cpu_types)
        for (double poison : {std::nan(""), HUGE_VAL, -HUGE_VAL}) {
          if (op->family == OpFamily::GlobalNorm && (format != "NHWC" || !training)) continue;
          Variant v;
          v.op = op;
          v.format = format;
          v.training = training;
          v.dtype = dtype;
          v.nhwc = {2, 3, 2, 3};
          const Problem base = make_problem(v);
          const bool channels_last = format == "NHWC";
          const Shape x_shape =
              base.inputs.count("x") ? base.inputs.at("x").shape() : base.inputs.at("t").shape();
          for (const auto& [name, tensor] : base.inputs) {
            if (tensor.numel() == 0 || name == "reserve_space_3") continue;
            Problem pb = base;
            pb.inputs[name].set(0, poison);  // element 0 lies in channel 0 in every layout
            check(pb, x_shape, channels_last, is_data_input(name),
                  describe(v) + " " + name + "[0]=" + std::to_string(poison));
            ++cases;
          }
        }
  EXPECT_GT(cases, 0);
}

// Negative population variance in inference gives NaN through rsqrt, only in its channel.
TEST_P(CpuNonFinite, NegativeInferenceVarianceGivesNan) {
  const OpSpec* op = find_op(GetParam());
  ASSERT_NE(op, nullptr);
  if (op->family != OpFamily::Fused) GTEST_SKIP() << "no inference mode";
  Variant v;
  v.op = op;
  v.training = false;
  v.nhwc = {2, 3, 2, 3};
  Problem pb = make_problem(v);
  const std::string var = op->is_grad ? "reserve_space_2" : "variance";
  pb.inputs[var].set(0, -4.0);
  check(pb, pb.inputs.at("x").shape(), true, true, describe(v) + " " + var + "[0]=-4");
}

std::vector<std::string> catalog_names() {
  std::vector<std::string> names;
  for (const OpSpec& op : op_catalog()) names.emplace_back(op.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(AllOps, CpuNonFinite, ::testing::ValuesIn(catalog_names()),
                         [](const auto& param_info) { return param_info.param; });

}  // namespace
}  // namespace bnscope::testing
