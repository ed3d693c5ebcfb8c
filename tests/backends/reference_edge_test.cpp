// Edge cases of spec section 9 on cpu-reference: empty inputs, M = 1, non-finite values, and the
// reserve-space check that runs before every grad.

#include <cmath>
#include <random>

#include "ops/bn_math.h"
#include "reference_util.h"

namespace bnscope {
namespace {

using testing::find_note;
using testing::has_note;
using testing::vec;

Tensor random_x(Shape shape, DType d = DType::F32, std::uint32_t seed = 5) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> n(0.0, 1.0);
  Tensor t(d, shape);
  // Channels (last axis) get distinct means and spreads, as real activations do.
  const std::int64_t c = shape.back();
  for (std::int64_t i = 0; i < t.numel(); ++i) {
    const double ch = static_cast<double>(i % c);
    t.set(i, 0.5 * ch - 1 + (0.5 + 0.3 * ch) * n(rng));
  }
  return t;
}

// A training forward followed by its grad, both V3 NHWC, reserve spaces as the forward made them.
struct Pipeline {
  Problem forward, grad;
};

Pipeline pipeline(DType d, ReserveConvention produced, ReserveConvention declared) {
  const Shape shape{2, 4, 4, 3};
  Pipeline pl;
  pl.forward.op = "FusedBatchNormV3";
  pl.forward.convention = produced;
  pl.forward.inputs = {
      {"x", random_x(shape, d)}, {"scale", vec({1, 2, 3})}, {"offset", vec({0, 0, 0})}};
  const Result f = run_problem(pl.forward, "cpu-reference");
  pl.grad.op = "FusedBatchNormGradV3";
  pl.grad.convention = declared;
  pl.grad.inputs = {{"y_backprop", random_x(shape, d, 9)},
                    {"x", pl.forward.inputs["x"]},
                    {"scale", vec({1, 2, 3})},
                    {"reserve_space_1", f.output("reserve_space_1").tensor},
                    {"reserve_space_2", f.output("reserve_space_2").tensor},
                    {"reserve_space_3", f.output("reserve_space_3").tensor}};
  return pl;
}

std::size_t count_code(const std::vector<Note>& notes, const std::string& code) {
  std::size_t n = 0;
  for (const Note& note : notes) n += note.code == code;
  return n;
}

// --- empty inputs (spec 9.4) ---

TEST(ReferenceEdge, EmptyGradGivesZeroBackpropsAndPlaceholders) {
  for (const OpSpec& op : op_catalog()) {
    if (op.family != OpFamily::Fused || !op.is_grad) continue;
    SCOPED_TRACE(std::string(op.name));
    Problem p;
    p.op = std::string(op.name);
    p.inputs = {{"y_backprop", Tensor(DType::F32, {2, 0, 3, 4})},
                {"x", Tensor(DType::F32, {2, 0, 3, 4})},
                {"scale", vec({1, 2, 3, 4})},
                {"reserve_space_1", vec({9, 9, 9, 9})},
                {"reserve_space_2", vec({9, 9, 9, 9})}};
    const Result r = run_problem(p, "cpu-reference");
    EXPECT_EQ(r.outputs[0].tensor.shape(), (Shape{2, 0, 3, 4}));
    testing::expect_all_near(r.outputs[1].tensor, {0, 0, 0, 0}, 0, "scale_backprop");
    testing::expect_all_near(r.outputs[2].tensor, {0, 0, 0, 0}, 0, "offset_backprop");
    EXPECT_EQ(r.outputs[3].tensor.shape(), Shape{0});
    EXPECT_EQ(r.outputs[4].tensor.shape(), Shape{0});
    EXPECT_FALSE(has_note(r.notes, "reserve-mismatch"));
  }
}

TEST(ReferenceEdge, EmptyForwardGivesNanStatisticsAndUndefinedReserves) {
  Problem p;
  p.op = "FusedBatchNormV3";
  p.inputs = {{"x", Tensor(DType::F32, {1, 0, 2, 3})},
              {"scale", vec({1, 1, 1})},
              {"offset", vec({0, 0, 0})}};
  const Result r = run_problem(p, "cpu-reference");
  EXPECT_EQ(r.output("y").tensor.shape(), (Shape{1, 0, 2, 3}));
  for (const char* n : {"batch_mean", "batch_variance"}) {
    const OutputTensor& o = r.output(n);
    ASSERT_EQ(o.tensor.numel(), 3) << n;
    for (std::int64_t i = 0; i < 3; ++i) EXPECT_TRUE(std::isnan(o.tensor.get(i))) << n;
  }
  EXPECT_FALSE(r.output("reserve_space_1").defined);
  EXPECT_FALSE(r.output("reserve_space_2").defined);
}

TEST(ReferenceEdge, EmptyNchwFreezeGradHasNoFormatNote) {
  Problem p;
  p.op = "FusedBatchNormGradV3";
  p.inputs = {{"y_backprop", Tensor(DType::F32, {0, 2, 3, 3})},
              {"x", Tensor(DType::F32, {0, 2, 3, 3})},
              {"scale", vec({1, 1})},
              {"reserve_space_1", vec({0, 0})},
              {"reserve_space_2", vec({1, 1})}};
  p.set_attr("data_format", "NCHW");
  p.set_attr("is_training", "false");
  const Result r = run_problem(p, "cpu-reference");
  EXPECT_FALSE(has_note(r.notes, "tf-reject-format"));
  // The same problem with data does get the note: the test above is not vacuous.
  p.inputs["x"] = Tensor(DType::F32, {1, 2, 3, 3});
  p.inputs["y_backprop"] = Tensor(DType::F32, {1, 2, 3, 3});
  EXPECT_TRUE(has_note(run_problem(p, "cpu-reference").notes, "tf-reject-format"));
}

// --- M = 1 (spec 9.5) ---

TEST(ReferenceEdge, SingleElementPerChannelClampsBessel) {
  EXPECT_EQ(bessel_factor(1), 1.0);
  EXPECT_EQ(bessel_factor(2), 2.0);
  Problem p;
  p.op = "FusedBatchNormV3";
  p.inputs = {{"x", testing::tensor({1, 1, 1, 3}, {3, -2, 7})},
              {"scale", vec({1, 2, 3})},
              {"offset", vec({0.5, 0.25, -1})}};
  const Result r = run_problem(p, "cpu-reference");
  testing::expect_all_near(r.output("batch_mean").tensor, {3, -2, 7}, 0, "batch_mean");
  testing::expect_all_near(r.output("batch_variance").tensor, {0, 0, 0}, 0, "batch_variance");
  testing::expect_all_near(r.output("reserve_space_2").tensor, {0, 0, 0}, 0, "reserve_space_2");
  testing::expect_all_near(r.output("y").tensor, {0.5, 0.25, -1}, 0, "y");
  for (const OutputTensor& o : r.outputs) EXPECT_EQ(o.non_finite, 0) << o.name;
}

TEST(ReferenceEdge, SingleElementPerChannelGradIsFinite) {
  Problem p;
  p.op = "FusedBatchNormGradV3";
  p.inputs = {{"y_backprop", testing::tensor({1, 1, 1, 2}, {1, -1})},
              {"x", testing::tensor({1, 1, 1, 2}, {3, 4})},
              {"scale", vec({1, 1})},
              {"reserve_space_1", vec({3, 4})},
              {"reserve_space_2", vec({0, 0})}};
  const Result r = run_problem(p, "cpu-reference");
  // With one element, dx = gamma*k*(dy - dy - 0) = 0 exactly.
  testing::expect_all_near(r.outputs[0].tensor, {0, 0}, 0, "x_backprop");
  testing::expect_all_near(r.outputs[2].tensor, {1, -1}, 0, "offset_backprop");
  EXPECT_FALSE(has_note(r.notes, "reserve-mismatch"));
}

// --- NaN/Inf (spec 9.6) ---

TEST(ReferenceEdge, NanInXPoisonsItsChannelAndIsCounted) {
  Pipeline pl = pipeline(DType::F32, ReserveConvention::Variance, ReserveConvention::Variance);
  Tensor& x = pl.grad.inputs["x"];
  x.set(0, std::nan(""));  // channel 0 of NHWC [2,4,4,3]: 32 elements
  const Result r = run_problem(pl.grad, "cpu-reference");
  EXPECT_EQ(r.output("x_backprop").non_finite, 32);
  EXPECT_EQ(r.output("scale_backprop").non_finite, 1);
  EXPECT_EQ(r.output("offset_backprop").non_finite, 0);
  const Note* in = find_note(r.notes, "non-finite-input", "x");
  ASSERT_NE(in, nullptr);
  EXPECT_NE(find_note(r.notes, "non-finite-output", "x_backprop"), nullptr);
  // The NaN channel is left to the health note, not reported as a reserve mismatch.
  EXPECT_FALSE(has_note(r.notes, "reserve-mismatch"));
}

// The profiler times run_backend_into, which leaves the output scan to run_prepared_into.
TEST(ReferenceEdge, OutputScanIsTheLastStepOfARun) {
  Pipeline pl = pipeline(DType::F32, ReserveConvention::Variance, ReserveConvention::Variance);
  pl.grad.inputs["x"].set(0, std::nan(""));
  const Prepared p = prepare(pl.grad);
  Backend& b = backend_or_throw("cpu-reference");
  Result r;
  run_backend_into(p, b, r);
  EXPECT_EQ(r.output("x_backprop").non_finite, 0) << "not counted yet";
  EXPECT_TRUE(std::isnan(r.output("x_backprop").tensor.get(0)));
  EXPECT_FALSE(has_note(r.notes, "non-finite-output"));
  run_prepared_into(p, b, r);
  EXPECT_EQ(r.output("x_backprop").non_finite, 32);
  EXPECT_TRUE(has_note(r.notes, "non-finite-output"));
}

TEST(ReferenceEdge, InfInForwardIsCounted) {
  Problem p;
  p.op = "FusedBatchNormV3";
  p.inputs = {{"x", random_x({2, 2, 2, 2})}, {"scale", vec({1, 1})}, {"offset", vec({0, 0})}};
  p.inputs["x"].set(1, INFINITY);  // channel 1
  const Result r = run_problem(p, "cpu-reference");
  EXPECT_EQ(r.output("y").non_finite, 8);
  EXPECT_EQ(r.output("batch_mean").non_finite, 1);
  EXPECT_TRUE(std::isfinite(r.output("batch_mean").tensor.get(0)));
  EXPECT_NE(find_note(r.notes, "non-finite-output", "y"), nullptr);
}

TEST(ReferenceEdge, ZeroEpsilonConstantChannelGivesNan) {
  Problem p;
  p.op = "FusedBatchNormV3";
  p.inputs = {
      {"x", testing::tensor({1, 2, 1, 1}, {4, 4})}, {"scale", vec({1})}, {"offset", vec({0})}};
  p.set_attr("epsilon", "0");
  const Result r = run_problem(p, "cpu-reference");
  EXPECT_EQ(r.output("y").non_finite, 2);
}

// --- the reserve-space check ---

TEST(ReserveCheck, ConsistentReservesGiveNoNotes) {
  for (DType d : {DType::F32, DType::F16, DType::BF16})
    for (ReserveConvention c : {ReserveConvention::Variance, ReserveConvention::InvStd}) {
      SCOPED_TRACE(std::string(dtype_name(d)) + " " + std::string(convention_name(c)));
      const Result r = run_problem(pipeline(d, c, c).grad, "cpu-reference");
      EXPECT_FALSE(has_note(r.notes, "reserve-mismatch"));
      EXPECT_FALSE(has_note(r.notes, "reserve-convention"));
    }
}

TEST(ReserveCheck, InvStdDeclaredAsVariance) {
  const Pipeline pl = pipeline(DType::F32, ReserveConvention::InvStd, ReserveConvention::Variance);
  const Result r = run_problem(pl.grad, "cpu-reference");
  ASSERT_EQ(count_code(r.notes, "reserve-convention"), 1u);
  const Note& n = *find_note(r.notes, "reserve-convention");
  EXPECT_EQ(n.kind, NoteKind::Warning);
  EXPECT_EQ(n.subject, "reserve_space_2");
  EXPECT_EQ(n.message,
            "reserve_space_2 looks like 1/sqrt(variance+epsilon) (cuDNN convention) but is "
            "declared as the variance; declare the inv_std convention (cuDNN) (3 of 3 channels)");
  EXPECT_FALSE(has_note(r.notes, "reserve-mismatch"));
}

TEST(ReserveCheck, VarianceDeclaredAsInvStd) {
  const Pipeline pl = pipeline(DType::F32, ReserveConvention::Variance, ReserveConvention::InvStd);
  const Result r = run_problem(pl.grad, "cpu-reference");
  ASSERT_EQ(count_code(r.notes, "reserve-convention"), 1u);
  EXPECT_EQ(find_note(r.notes, "reserve-convention")->message,
            "reserve_space_2 looks like the batch variance (CPU convention) but is declared as "
            "1/sqrt(variance+epsilon); declare the variance convention (CPU) (3 of 3 channels)");
}

TEST(ReserveCheck, WrongMeanNamesTheWorstChannel) {
  Pipeline pl = pipeline(DType::F32, ReserveConvention::Variance, ReserveConvention::Variance);
  Tensor& rs1 = pl.grad.inputs["reserve_space_1"];
  const double expected = rs1.get(1);
  rs1.set(1, expected + 0.5);
  rs1.set(2, rs1.get(2) + 0.2);
  const Result r = run_problem(pl.grad, "cpu-reference");
  ASSERT_EQ(count_code(r.notes, "reserve-mismatch"), 1u);
  const Note& n = *find_note(r.notes, "reserve-mismatch");
  EXPECT_EQ(n.subject, "reserve_space_1");
  EXPECT_EQ(n.channel, 1);
  EXPECT_NE(n.message.find("(2 of 3 channels)"), std::string::npos) << n.message;
  EXPECT_NE(n.message.find("worst channel 1"), std::string::npos) << n.message;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", expected);
  EXPECT_NE(n.message.find(std::string("expected ") + buf), std::string::npos) << n.message;
}

TEST(ReserveCheck, WrongVarianceIsAMismatchNotAConvention) {
  Pipeline pl = pipeline(DType::F32, ReserveConvention::Variance, ReserveConvention::Variance);
  Tensor& rs2 = pl.grad.inputs["reserve_space_2"];
  rs2.set(2, rs2.get(2) * 1.5);
  const Result r = run_problem(pl.grad, "cpu-reference");
  const Note* n = find_note(r.notes, "reserve-mismatch", "reserve_space_2");
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->channel, 2);
  EXPECT_NE(n->message.find("(1 of 3 channels)"), std::string::npos) << n->message;
  EXPECT_FALSE(has_note(r.notes, "reserve-convention"));
}

TEST(ReserveCheck, PopulationStatisticsInTrainingAreFlagged) {
  // A common mix-up: the running mean/variance fed to a training-mode grad.
  Pipeline pl = pipeline(DType::F32, ReserveConvention::Variance, ReserveConvention::Variance);
  pl.grad.inputs["reserve_space_1"] = vec({0, 0, 0});
  pl.grad.inputs["reserve_space_2"] = vec({1, 1, 1});
  const Result r = run_problem(pl.grad, "cpu-reference");
  EXPECT_EQ(count_code(r.notes, "reserve-mismatch"), 2u);
}

TEST(ReserveCheck, FreezeModeIsNotChecked) {
  Pipeline pl = pipeline(DType::F32, ReserveConvention::Variance, ReserveConvention::Variance);
  pl.grad.inputs["reserve_space_1"] = vec({0, 0, 0});
  pl.grad.inputs["reserve_space_2"] = vec({1, 1, 1});
  pl.grad.set_attr("is_training", "false");
  const Result r = run_problem(pl.grad, "cpu-reference");
  EXPECT_FALSE(has_note(r.notes, "reserve-mismatch"));
}

// --- RunContext ---

TEST(ReferenceEdge, ProgressReachesOneAndCancelStops) {
  const Pipeline pl =
      pipeline(DType::F32, ReserveConvention::Variance, ReserveConvention::Variance);
  std::vector<double> seen;
  RunContext ctx;
  ctx.progress = [&](double f) { seen.push_back(f); };
  run_problem(pl.grad, "cpu-reference", ctx);
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.back(), 1.0);
  for (std::size_t i = 1; i < seen.size(); ++i) EXPECT_GE(seen[i], seen[i - 1]);

  std::atomic<bool> cancel{false};
  RunContext cancelling;
  cancelling.cancel = &cancel;
  cancelling.progress = [&](double) { cancel = true; };  // cancel after the first pass
  try {
    run_problem(pl.grad, "cpu-reference", cancelling);
    ADD_FAILURE() << "not cancelled";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Cancelled);
  }
}

}  // namespace
}  // namespace bnscope
