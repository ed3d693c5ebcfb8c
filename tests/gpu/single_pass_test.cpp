// The single-pass training grad on cuda-emu: what the planner sends through one cooperative
// launch (the tile held in registers and shared memory across a grid barrier) matches
// cpu-reference with the device tolerances in every thread order and layout, gives bitwise the
// same outputs whatever the order and from run to run (the fixed reduction tree), agrees with
// the two-pass kernels, and a plan that cannot be co-resident is refused, not run.
// The target is a 2-SM sm_90 (emu::Config::target) so that grids of a few CTAs already need
// several slices of M, the shared-memory part of the tile and the grid barrier.

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "backends/backend.h"
#include "emu_backend.h"
#include "emulator.h"
#include "engine/engine.h"
#include "ops/prepared.h"
#include "ops/sample.h"
#include "selftest.h"
#include "tensor/error.h"

namespace bnscope::gpu {
namespace {

class SmallTarget {
 public:
  explicit SmallTarget(emu::Order o, std::uint64_t seed = 3) : saved_(emu::config()) {
    emu::Config c;
    c.order = o;
    c.seed = seed;
    c.target.sm_count = 2;
    emu::set_config(c);
  }
  ~SmallTarget() { emu::set_config(saved_); }

 private:
  emu::Config saved_;
};

Prepared problem(Shape shape, DataFormat format, DType t, std::uint64_t seed = 5,
                 ReserveConvention conv = ReserveConvention::Variance) {
  SampleSpec spec;
  spec.op = "FusedBatchNormGradV3";
  spec.shape = shape;
  spec.format = format;
  spec.dtype = t;
  spec.is_training = true;
  spec.seed = seed;
  spec.convention = conv;
  return prepare(random_problem(spec));
}

// Runs p on cuda-emu and reports the plan it got.
Result run(const Prepared& p, Plan* planned = nullptr, const PlanOverride& change = {}) {
  Result r;
  run_emulated(p, r, [&](Plan& plan) {
    if (change) change(plan);
    if (planned) *planned = plan;
  });
  return r;
}

bool same_bits(const Result& a, const Result& b) {
  if (a.outputs.size() != b.outputs.size()) return false;
  for (std::size_t i = 0; i < a.outputs.size(); ++i) {
    const Tensor& x = a.outputs[i].tensor;
    const Tensor& y = b.outputs[i].tensor;
    if (x.nbytes() != y.nbytes()) return false;
    // memcmp takes no null pointer, not even for zero bytes (an empty output has no storage).
    if (x.nbytes() && std::memcmp(x.raw(), y.raw(), x.nbytes()) != 0) return false;
  }
  return true;
}

struct Case {
  Shape shape;
  DataFormat format;
  DType t;
};

// NHWC with C = 40 (two channel groups of 32, the second partial), NCHW planes, 16-bit types;
// each large enough for several slices and the shared-memory tile on two SMs.
const Case kCases[] = {
    {{2, 20, 20, 40}, DataFormat::NHWC, DType::F32},
    {{2, 30, 30, 40}, DataFormat::NHWC, DType::F16},
    {{3, 60, 60, 2}, DataFormat::NCHW, DType::BF16},
    {{2, 70, 70, 3}, DataFormat::NCHW, DType::F32},
};

TEST(SinglePass, MatchesCpuReferenceInEveryOrder) {
  Backend& reference = *BackendRegistry::instance().find("cpu-reference");
  for (const Case& c : kCases)
    for (emu::Order o : {emu::Order::Forward, emu::Order::Reverse, emu::Order::Random}) {
      SCOPED_TRACE(shape_str(c.shape) + " " + std::string(data_format_name(c.format)) + " " +
                   std::string(dtype_name(c.t)) + " " + emu::order_name(o));
      const SmallTarget target(o);
      const Prepared p = problem(c.shape, c.format, c.t);
      Plan plan;
      const Result got = run(p, &plan);
      ASSERT_EQ(plan.variant, Variant::SinglePass);
      EXPECT_GT(plan.splits, 1) << "the grid barrier joins several slices of M";
      EXPECT_GT(plan.smem_items, 0) << "part of the tile is held in shared memory";
      const CaseOutcome out = compare_case(p, got, run_prepared(p, reference));
      EXPECT_EQ(out.status, CaseStatus::Pass) << out.detail << " (worst " << out.worst << ")";
    }
}

TEST(SinglePass, OutputsAreBitwiseTheSameInEveryOrderAndRun) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(shape_str(c.shape) + " " + std::string(dtype_name(c.t)));
    const Prepared p = problem(c.shape, c.format, c.t, 9);
    Result first;
    {
      const SmallTarget target(emu::Order::Forward);
      first = run(p);
    }
    for (std::uint64_t seed : {1, 2, 3}) {
      const SmallTarget target(seed == 1 ? emu::Order::Reverse : emu::Order::Random, seed);
      EXPECT_TRUE(same_bits(first, run(p))) << "seed " << seed;
    }
  }
}

TEST(SinglePass, AgreesWithTheTwoPassKernels) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(shape_str(c.shape) + " " + std::string(dtype_name(c.t)));
    const SmallTarget target(emu::Order::Random);
    const Prepared p = problem(c.shape, c.format, c.t, 13, ReserveConvention::InvStd);
    Plan single, two;
    const Result a = run(p, &single);
    const Result b = run(p, &two, [](Plan& plan) {
      plan.variant = Variant::CtaPerGroup;
      plan.splits = 1;
    });
    ASSERT_EQ(single.variant, Variant::SinglePass);
    ASSERT_EQ(two.variant, Variant::CtaPerGroup);
    const CaseOutcome out = compare_case(p, a, b);
    EXPECT_EQ(out.status, CaseStatus::Pass) << out.detail;
  }
}

// Two SMs keep 8 CTAs of the single-pass footprint (4 each); a grid of 9 cannot be co-resident.
TEST(SinglePass, APlanBeyondTheCoResidentGridIsRefused) {
  const SmallTarget target(emu::Order::Forward);
  const Prepared p = problem({1, 1, 100, 9}, DataFormat::NHWC, DType::F32);  // M = 100, 1 group
  try {
    run(p, nullptr, [](Plan& plan) {
      plan.variant = Variant::SinglePass;
      plan.splits = 9;  // 2 SMs keep 8 CTAs of this footprint
      plan.m_per_split = 12;
      plan.smem_items = 0;
      plan.tile_offset_bytes = 2 * plan.threads() * 4;
      plan.workspace_bytes = 9 * 9 * 2 * 4;
    });
    ADD_FAILURE() << "the launch ran";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("cannot be co-resident"), std::string::npos) << what;
    EXPECT_NE(what.find("cudaErrorCooperativeLaunchTooLarge"), std::string::npos) << what;
  }
}

// Past what two SMs hold on chip, the training grad goes back to the two-pass kernels.
TEST(SinglePass, ShapesPastTheChipTakeTheTwoPassPath) {
  const SmallTarget target(emu::Order::Forward);
  Plan plan;
  run(problem({8, 40, 40, 64}, DataFormat::NHWC, DType::F32), &plan);  // 102400 x 64 values
  EXPECT_NE(plan.variant, Variant::SinglePass);
}

}  // namespace
}  // namespace bnscope::gpu
