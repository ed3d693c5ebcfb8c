// TensorFlow's own kernel tests (spec 8.1) and the values derived from them, through the engine's
// one path with the cpu-reference backend. Every fused case runs for each catalog version.

#include "reference_util.h"

namespace bnscope {
namespace {

using testing::expect_all_near;
using testing::tensor;
using testing::vec;

constexpr double kTfTol = 0.01;  // TensorFlow's tolerance for these cases

std::vector<const OpSpec*> fused_ops(bool grad) {
  std::vector<const OpSpec*> ops;
  for (const OpSpec& op : op_catalog())
    if (op.family == OpFamily::Fused && op.is_grad == grad) ops.push_back(&op);
  return ops;
}

// 8.1.1-8.1.4 share x, scale and offset.
Problem forward_case(const OpSpec& op) {
  Problem p;
  p.op = std::string(op.name);
  p.inputs["x"] = tensor({1, 1, 6, 2}, {5, 5, 7, 7, 9, 9, 11, 11, 13, 13, 15, 15});
  p.inputs["scale"] = vec({4, 4});
  p.inputs["offset"] = vec({2, 2});
  p.inputs["mean"] = vec({});
  p.inputs["variance"] = vec({});
  p.set_attr("epsilon", "0.001");
  return p;
}

const std::vector<double> kForwardY = {-3.86, -3.86, -1.51, -1.51, 0.83, 0.83,
                                       3.17,  3.17,  5.51,  5.51,  7.86, 7.86};

TEST(ReferenceTfCases, FusedBatchNormTraining) {
  for (const OpSpec* op : fused_ops(false)) {
    SCOPED_TRACE(std::string(op->name));
    Problem pb = forward_case(*op);
    Result r = run_problem(pb, "cpu-reference");
    expect_all_near(r.output("y").tensor, kForwardY, kTfTol, "y");
    expect_all_near(r.output("batch_mean").tensor, {10, 10}, kTfTol, "batch_mean");
    expect_all_near(r.output("batch_variance").tensor, {14, 14}, kTfTol, "batch_variance");
    expect_all_near(r.output("reserve_space_1").tensor, {10, 10}, 1e-5, "reserve_space_1");
    expect_all_near(r.output("reserve_space_2").tensor, {35.0 / 3, 35.0 / 3}, 1e-4,
                    "reserve_space_2");
    if (op->version == 3) {
      const Tensor& rs3 = r.output("reserve_space_3").tensor;
      EXPECT_EQ(rs3.rank(), 0);
      EXPECT_EQ(rs3.get(0), 0.0);
    }
    // The cuDNN producer's reserve_space_2 for the same batch (spec 8.1.1, derived).
    pb.convention = ReserveConvention::InvStd;
    r = run_problem(pb, "cpu-reference");
    expect_all_near(r.output("reserve_space_2").tensor, {0.292757, 0.292757}, 1e-6,
                    "reserve_space_2 inv_std");
    expect_all_near(r.output("y").tensor, kForwardY, kTfTol, "y inv_std");
  }
}

TEST(ReferenceTfCases, FusedBatchNormTrainingRunningMean) {
  for (const OpSpec* op : fused_ops(false)) {
    SCOPED_TRACE(std::string(op->name));
    Problem pb = forward_case(*op);
    pb.inputs["mean"] = vec({6, 6});
    pb.inputs["variance"] = vec({16, 16});
    pb.set_attr("exponential_avg_factor", "0.5");
    const Result r = run_problem(pb, "cpu-reference");
    expect_all_near(r.output("y").tensor, kForwardY, kTfTol, "y");
    expect_all_near(r.output("batch_mean").tensor, {8, 8}, kTfTol, "batch_mean");
    expect_all_near(r.output("batch_variance").tensor, {15, 15}, kTfTol, "batch_variance");
  }
}

TEST(ReferenceTfCases, FusedBatchNormInference) {
  for (const OpSpec* op : fused_ops(false))
    for (const char* factor : {"1.0", "0.5"}) {  // 8.1.3, and 8.1.4 where f is ignored
      SCOPED_TRACE(std::string(op->name) + " f=" + factor);
      Problem pb = forward_case(*op);
      pb.inputs["mean"] = vec({10, 10});
      pb.inputs["variance"] = vec({11.67, 11.67});
      pb.set_attr("is_training", "false");
      pb.set_attr("exponential_avg_factor", factor);
      const Result r = run_problem(pb, "cpu-reference");
      expect_all_near(r.output("y").tensor, kForwardY, kTfTol, "y");
      expect_all_near(r.output("batch_mean").tensor, {10, 10}, 1e-6, "batch_mean");
      expect_all_near(r.output("batch_variance").tensor, {11.67, 11.67}, 1e-5, "batch_variance");
      EXPECT_FALSE(r.output("reserve_space_1").defined);
      EXPECT_FALSE(r.output("reserve_space_2").defined);
    }
}

TEST(ReferenceTfCases, FusedBatchNormEmptyInput) {
  for (const OpSpec* op : fused_ops(false)) {
    SCOPED_TRACE(std::string(op->name));
    Problem pb;
    pb.op = std::string(op->name);
    pb.inputs["x"] = Tensor(DType::F32, {1, 1, 0, 0});
    for (const char* n : {"scale", "offset", "mean", "variance"}) pb.inputs[n] = vec({});
    const Result r = run_problem(pb, "cpu-reference");
    EXPECT_EQ(r.output("y").tensor.shape(), (Shape{1, 1, 0, 0}));
  }
}

Problem grad_case(const OpSpec& op) {
  Problem p;
  p.op = std::string(op.name);
  p.inputs["y_backprop"] = tensor({1, 1, 6, 2}, {2, 2, 9, 9, -4, -4, 5, 5, 8, 8, 7, 7});
  p.inputs["x"] = tensor({1, 1, 6, 2}, {1, 1, 7, 7, 4, 4, -3, -3, -11, -11, 13, 13});
  p.inputs["scale"] = vec({4, 4});
  p.inputs["reserve_space_1"] = vec({1.833, 1.833});
  p.inputs["reserve_space_2"] = vec({57.472, 57.472});
  p.set_attr("epsilon", "0.001");
  return p;
}

TEST(ReferenceTfCases, FusedBatchNormGradSimple) {
  for (const OpSpec* op : fused_ops(true)) {
    SCOPED_TRACE(std::string(op->name));
    const Result r = run_problem(grad_case(*op), "cpu-reference");
    expect_all_near(r.outputs[0].tensor,
                    {-1.34, -1.34, 2.47, 2.47, -4.44, -4.44, 0.17, 0.17, 1.60, 1.60, 1.53, 1.53},
                    kTfTol, "x_backprop");
    expect_all_near(r.outputs[1].tensor, {-1.64765, -1.64765}, 1e-4, "scale_backprop");
    expect_all_near(r.outputs[2].tensor, {27, 27}, 1e-9, "offset_backprop");
    EXPECT_EQ(r.outputs[3].tensor.shape(), Shape{0});
    EXPECT_EQ(r.outputs[4].tensor.shape(), Shape{0});
    // The test's reserve spaces are x's statistics to three decimals: no reserve warning.
    EXPECT_TRUE(r.notes.empty()) << r.notes.front().message;
  }
}

TEST(ReferenceTfCases, FusedBatchNormGradSimpleWithCudnnReserve) {
  // The same case with the GPU's reserve_space_2 (1/sqrt(57.472 + 0.001)) under inv_std.
  for (const OpSpec* op : fused_ops(true)) {
    SCOPED_TRACE(std::string(op->name));
    Problem pb = grad_case(*op);
    pb.inputs["reserve_space_2"] = vec({0.131907, 0.131907});
    pb.convention = ReserveConvention::InvStd;
    const Result r = run_problem(pb, "cpu-reference");
    expect_all_near(r.outputs[0].tensor,
                    {-1.34, -1.34, 2.47, 2.47, -4.44, -4.44, 0.17, 0.17, 1.60, 1.60, 1.53, 1.53},
                    kTfTol, "x_backprop");
    expect_all_near(r.outputs[1].tensor, {-1.64765, -1.64765}, 1e-4, "scale_backprop");
    EXPECT_TRUE(r.notes.empty()) << r.notes.front().message;
  }
}

TEST(ReferenceTfCases, FusedBatchNormGradFreezeDerived) {
  for (const OpSpec* op : fused_ops(true)) {
    SCOPED_TRACE(std::string(op->name));
    Problem pb = grad_case(*op);
    pb.set_attr("is_training", "false");
    const Result r = run_problem(pb, "cpu-reference");
    std::vector<double> dx;
    for (double v : {1.0553, 4.7487, -2.1105, 2.6381, 4.2210, 3.6934}) {
      dx.push_back(v);
      dx.push_back(v);
    }
    expect_all_near(r.outputs[0].tensor, dx, 1e-4, "x_backprop");
    expect_all_near(r.outputs[1].tensor, {-1.64765, -1.64765}, 1e-4, "scale_backprop");
    expect_all_near(r.outputs[2].tensor, {27, 27}, 1e-9, "offset_backprop");
  }
}

const std::vector<double> kGlobalT = {1, 4, 2, 5, 3, 6, -1, -4, -2, -5, -3, -6};

TEST(ReferenceTfCases, BatchNormWithGlobalNormalizationSimple) {
  for (DType d : {DType::F32, DType::F16}) {
    SCOPED_TRACE(std::string(dtype_name(d)));
    Problem pb;
    pb.op = "BatchNormWithGlobalNormalization";
    pb.inputs["t"] = tensor({1, 1, 6, 2}, kGlobalT, d);
    pb.inputs["m"] = vec({10, 20}, d);
    pb.inputs["v"] = vec({0.25, 0.5}, d);
    pb.inputs["beta"] = vec({0.1, 0.6}, d);
    pb.inputs["gamma"] = vec({0, 0}, d);
    pb.set_attr("scale_after_normalization", "false");
    pb.set_attr("variance_epsilon", "0.001");
    const Result r = run_problem(pb, "cpu-reference");
    EXPECT_EQ(r.output("result").tensor.dtype(), d);
    expect_all_near(r.output("result").tensor,
                    {-17.86, -22.00, -15.87, -20.59, -13.87, -19.18, -21.86, -33.31, -23.85, -34.72,
                     -25.85, -36.13},
                    d == DType::F32 ? 0.01 : 0.1, "result");
  }
}

struct GlobalGradExpected {
  bool scale;
  std::vector<double> dx, dm, dv, db, dg;
};

TEST(ReferenceTfCases, BatchNormWithGlobalNormalizationGradDerived) {
  const GlobalGradExpected cases[] = {
      {true,
       {3.99202, -4.2384, 7.98405, -8.47681, 11.97607, -12.71521, 1.99601, -2.1192, 5.98804,
        -6.35761, 9.98006, -10.59601},
       {-41.91625, 44.50325},
       {811.12837, -856.56376},
       {10.5, -10.5},
       {-203.59322, 286.0923}},
      {false,
       {1.99601, -1.4128, 3.99202, -2.8256, 5.98804, -4.2384, 0.99801, -0.7064, 2.99402, -2.1192,
        4.99003, -3.532},
       {-20.95813, 14.83442},
       {405.56418, -285.52125},
       {10.5, -10.5},
       {0, 0}},
  };
  for (const GlobalGradExpected& c : cases) {
    SCOPED_TRACE(c.scale ? "scale_after_normalization" : "no scale");
    Problem pb;
    pb.op = "BatchNormWithGlobalNormalizationGrad";
    pb.inputs["t"] = tensor({1, 1, 6, 2}, kGlobalT);
    pb.inputs["m"] = vec({10, 20});
    pb.inputs["v"] = vec({0.25, 0.5});
    pb.inputs["gamma"] = vec({2, 3});
    pb.inputs["backprop"] =
        tensor({1, 1, 6, 2}, {1, -1, 2, -2, 3, -3, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5});
    pb.set_attr("scale_after_normalization", c.scale ? "true" : "false");
    pb.set_attr("variance_epsilon", "0.001");
    const Result r = run_problem(pb, "cpu-reference");
    // The derived values carry five decimals; dv and dg are large, so compare relatively there.
    expect_all_near(r.output("dx").tensor, c.dx, 2e-5, "dx");
    expect_all_near(r.output("dm").tensor, c.dm, 2e-4, "dm");
    expect_all_near(r.output("dv").tensor, c.dv, 2e-3, "dv");
    expect_all_near(r.output("db").tensor, c.db, 1e-9, "db");
    expect_all_near(r.output("dg").tensor, c.dg, 2e-3, "dg");
  }
}

}  // namespace
}  // namespace bnscope
