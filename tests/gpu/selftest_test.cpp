#include "selftest.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "analysis/diff.h"
#include "backends/backend.h"
#include "ops/outputs.h"
#include "ops/prepared.h"
#include "ops/reserve_check.h"
#include "tensor/error.h"

namespace bnscope::gpu {
namespace {

TEST(SelftestCases, CoverEveryCatalogOpWithUniqueLabels) {
  const std::vector<SelftestCase> cases = selftest_cases();
  std::set<std::string> ops, labels;
  for (const SelftestCase& c : cases) {
    ops.insert(c.label.substr(0, c.label.find(' ')));
    EXPECT_TRUE(labels.insert(c.label).second) << "duplicate label " << c.label;
  }
  for (const OpSpec& op : op_catalog()) EXPECT_TRUE(ops.count(std::string(op.name))) << op.name;
}

TEST(SelftestCases, CoverFormatsModesAndDtypes) {
  std::set<std::string> seen;
  for (const SelftestCase& c : selftest_cases())
    for (const char* key : {"NHWC", "NCHW", "NDHWC", "NCDHW", "training", "inference", "inv_std",
                            "float16", "bfloat16", "float32", "unscaled"})
      if (c.label.find(key) != std::string::npos) seen.insert(key);
  EXPECT_EQ(seen.size(), 11u);
}

TEST(SelftestCases, HoldOnlyTheCatalogsGpuTypes) {
  for (const SelftestCase& c : selftest_cases()) {
    const Prepared p = prepare(c.build());
    bool listed = false;
    for (DType t : p.op->gpu_types) listed = listed || t == p.t;
    EXPECT_TRUE(listed) << c.label;
  }
}

TEST(SelftestCases, AllPrepareAndTrainingReservesMatchTheirX) {
  for (const SelftestCase& c : selftest_cases()) {
    if (c.label.find("[27,131,127,6]") != std::string::npos) continue;  // same code, 2.7 M values
    SCOPED_TRACE(c.label);
    Prepared p;
    ASSERT_NO_THROW(p = prepare(c.build()));
    for (const Note& n : check_reserve_spaces(p))
      EXPECT_NE(n.code, "reserve-mismatch") << n.message;
  }
}

struct Made {
  Prepared p;
  Result r;
};

Made make_result(const char* op_name, double fill) {
  Problem pb;
  pb.op = op_name;
  pb.attrs["epsilon"] = 0.001;
  pb.inputs["x"] = Tensor(DType::F32, {1, 1, 2, 2});
  if (std::string(op_name).find("Grad") != std::string::npos) {
    pb.inputs["y_backprop"] = Tensor(DType::F32, {1, 1, 2, 2});
    pb.inputs["reserve_space_1"] = Tensor(DType::F32, {2});
    pb.inputs["reserve_space_2"] = Tensor(DType::F32, {2});
  } else {
    pb.inputs["offset"] = Tensor(DType::F32, {2});
  }
  pb.inputs["scale"] = Tensor(DType::F32, {2});
  const Prepared p = prepare(pb);
  Result r;
  allocate_outputs(p, r);
  for (OutputTensor& o : r.outputs)
    for (std::int64_t i = 0; i < o.tensor.numel(); ++i) o.tensor.set(i, fill + i);
  return {p, r};
}

TEST(SelftestCompare, EqualPassesPerturbedFails) {
  const auto [p, want] = make_result("FusedBatchNormGradV3", 1.0);
  Result got = want;
  EXPECT_EQ(compare_case(p, got, want).status, CaseStatus::Pass);
  got.output("x_backprop").tensor.set(3, 4.0 + 5e-5);  // within 1e-4 + 1e-4*4
  EXPECT_EQ(compare_case(p, got, want).status, CaseStatus::Pass);
  got.output("scale_backprop").tensor.set(1, 2.01);
  const CaseOutcome o = compare_case(p, got, want);
  EXPECT_EQ(o.status, CaseStatus::Fail);
  EXPECT_NE(o.detail.find("scale_backprop[1]"), std::string::npos) << o.detail;
  EXPECT_GT(o.worst, 1.0);
}

TEST(SelftestCompare, NaNAgainstNumberFailsNaNAgainstNaNPasses) {
  const auto [p, want] = make_result("FusedBatchNormGradV3", 1.0);
  Result got = want;
  got.output("offset_backprop").tensor.set(0, std::nan(""));
  EXPECT_EQ(compare_case(p, got, want).status, CaseStatus::Fail);
  Result want_nan = want;
  want_nan.output("offset_backprop").tensor.set(0, std::nan(""));
  EXPECT_EQ(compare_case(p, got, want_nan).status, CaseStatus::Pass);
}

TEST(SelftestCompare, SkipsUndefinedOutputsAndForwardReserveSpace3) {
  const auto [p, want] = make_result("FusedBatchNormV3", 1.0);
  Result got = want;
  got.output("reserve_space_3").tensor.reset(DType::F32, {64});  // cuDNN's opaque buffer
  EXPECT_EQ(compare_case(p, got, want).status, CaseStatus::Pass);
  got.output("y").tensor.reset(DType::F32, {4});
  EXPECT_EQ(compare_case(p, got, want).status, CaseStatus::Fail);
  got = want;
  got.output("batch_mean").tensor.set(0, 99);
  got.output("batch_mean").defined = false;
  EXPECT_EQ(compare_case(p, got, want).status, CaseStatus::Pass);
}

Tolerance selftest_tolerance(DType t) {
  return default_tolerance(t, ToleranceSet::Selftest);
}

TEST(SelftestCompare, SixteenBitToleranceIsLooser) {
  EXPECT_GT(selftest_tolerance(DType::F16).rtol, selftest_tolerance(DType::F32).rtol);
  EXPECT_GT(selftest_tolerance(DType::BF16).rtol, selftest_tolerance(DType::F16).rtol);
  EXPECT_LT(selftest_tolerance(DType::F64).rtol, selftest_tolerance(DType::F32).rtol);
  // A kernel on TensorFlow's small test shapes is held tighter in float than any two runs.
  EXPECT_LT(selftest_tolerance(DType::F32).atol, default_tolerance(DType::F32).atol);
}

// The per-channel outputs of a 16-bit V3 run are float and judged as float.
TEST(SelftestCompare, FloatOutputsOfHalfDataAreJudgedAsFloat) {
  Problem pb;
  pb.op = "FusedBatchNormGradV3";
  pb.attrs["epsilon"] = 0.001;
  pb.inputs["x"] = Tensor(DType::F16, {1, 1, 2, 2});
  pb.inputs["y_backprop"] = Tensor(DType::F16, {1, 1, 2, 2});
  for (const char* name : {"scale", "reserve_space_1", "reserve_space_2"})
    pb.inputs[name] = Tensor(DType::F32, {2});
  const Prepared p = prepare(pb);
  Result want;
  allocate_outputs(p, want);
  for (OutputTensor& o : want.outputs)
    for (std::int64_t i = 0; i < o.tensor.numel(); ++i) o.tensor.set(i, 1.0 + i);
  Result got = want;
  got.output("scale_backprop").tensor.set(0, 1.0 + 5e-3);  // within half's, not float's
  EXPECT_EQ(compare_case(p, got, want).status, CaseStatus::Fail);
  got = want;
  got.output("x_backprop").tensor.set(0, 1.0 + 1e-2);  // within half's 2e-2 + 2e-2
  EXPECT_EQ(compare_case(p, got, want).status, CaseStatus::Pass);
}

class ThrowingBackend : public Backend {
 public:
  explicit ThrowingBackend(std::string unsupported) : unsupported_(std::move(unsupported)) {}
  std::string_view name() const override { return "throwing"; }
  std::string_view description() const override { return "test double"; }
  std::string unsupported_reason(const Prepared&) const override { return unsupported_; }
  void run(const Prepared&, Result&, const RunContext&) override {
    throw Error(ErrorCode::Internal, "device fell over");
  }

 private:
  std::string unsupported_;
};

TEST(SelftestRun, ErrorsAndUnsupportedBecomeOutcomes) {
  const SelftestCase c = selftest_cases().front();
  ThrowingBackend broken(""), picky("no such kernel");
  ThrowingBackend reference("");
  CaseOutcome o = run_selftest_case(c, picky, reference);
  EXPECT_EQ(o.status, CaseStatus::Unsupported);
  EXPECT_EQ(o.detail, "no such kernel");
  o = run_selftest_case(c, broken, reference);
  EXPECT_EQ(o.status, CaseStatus::Error);
  EXPECT_NE(o.detail.find("device fell over"), std::string::npos);
}

// Stands in for a device backend: cpu-reference's results with one output poisoned by NaN.
class PoisoningBackend : public Backend {
 public:
  PoisoningBackend(std::string name, std::string output)
      : name_(std::move(name)), output_(std::move(output)) {}
  std::string_view name() const override { return name_; }
  std::string_view description() const override { return "test"; }
  void run(const Prepared& p, Result& r, const RunContext& ctx) override {
    BackendRegistry::instance().find("cpu-reference")->run(p, r, ctx);
    for (OutputTensor& o : r.outputs)
      if (o.name == output_) {
        std::vector<double> v(static_cast<std::size_t>(o.tensor.numel()), std::nan(""));
        o.tensor.set_doubles(v);
      }
  }

 private:
  std::string name_, output_;
};

const SelftestCase& find_case(std::string_view label) {
  static const std::vector<SelftestCase> all = selftest_cases();
  for (const SelftestCase& c : all)
    if (c.label == label) return c;
  throw Error(ErrorCode::Internal, "no selftest case " + std::string(label));
}

// TensorFlow on GPU returns cuDNN's NaN running variance at M = 1: accepted from cudnn there
// only, and only for batch_variance.
TEST(SelftestRun, CudnnNanVarianceAtMOneIsTensorFlowsGpuBehaviour) {
  Backend& reference = *BackendRegistry::instance().find("cpu-reference");
  const SelftestCase& m1 = find_case("FusedBatchNormV3 NHWC training f=1 float32 [1,1,1,1]");
  const SelftestCase& m6 = find_case("FusedBatchNormV3 NHWC training f=1 float32 [1,1,6,1]");
  PoisoningBackend cudnn_var("cudnn", "batch_variance"), cuda_var("cuda", "batch_variance"),
      cudnn_y("cudnn", "y");
  CaseOutcome o = run_selftest_case(m1, cudnn_var, reference);
  EXPECT_EQ(o.status, CaseStatus::Pass) << o.detail;
  EXPECT_NE(o.detail.find("M = 1"), std::string::npos);
  EXPECT_EQ(run_selftest_case(m6, cudnn_var, reference).status, CaseStatus::Fail);
  EXPECT_EQ(run_selftest_case(m1, cuda_var, reference).status, CaseStatus::Fail);
  EXPECT_EQ(run_selftest_case(m1, cudnn_y, reference).status, CaseStatus::Fail);
}

}  // namespace
}  // namespace bnscope::gpu
