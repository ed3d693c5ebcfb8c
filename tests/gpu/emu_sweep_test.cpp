// The device sweep on cuda-emu against cpu-reference, with the tolerances used on a device: every
// case of the selftest sweep (op x data format x mode x reserve convention x dtype on the device
// tests' shapes) with the planner's plan, again with the other reduction variant forced (grad
// ops: cta-per-group <-> split-m), and with the 64-bit index path forced. Cases rotate through
// the three thread orders; nothing skips.

#include <gtest/gtest.h>

#include <cctype>
#include <string>

#include "backends/backend.h"
#include "emu_backend.h"
#include "emulator.h"
#include "engine.h"
#include "ops/prepared.h"
#include "selftest.h"

namespace bnscope::gpu {
namespace {

const std::vector<SelftestCase>& cases() {
  static const std::vector<SelftestCase> c = selftest_cases();
  return c;
}

enum class Force { None, OtherVariant, Index64 };

// Makes the plan the other variant: split-m into 3 slices of M, or one CTA per channel group.
void force_other_variant(Plan& plan, const Prepared& p) {
  const std::int64_t m = p.view.outer * p.view.inner;
  const std::int64_t acc = p.t == DType::F64 ? 8 : 4;
  if (plan.variant == Variant::CtaPerGroup) {
    plan.variant = Variant::SplitM;
    plan.m_per_split = (m + 2) / 3;
    plan.splits = static_cast<int>((m + plan.m_per_split - 1) / plan.m_per_split);
    plan.workspace_bytes = plan.splits * p.view.channels * 2 * acc;
  } else {
    plan.variant = Variant::CtaPerGroup;
    plan.splits = 1;
    plan.m_per_split = m;
    plan.workspace_bytes = 0;
  }
}

struct Param {
  std::size_t index;
  Force force;
};

void PrintTo(const Param& p, std::ostream* os) {
  *os << "case " << p.index;
}

class EmuSweep : public testing::TestWithParam<Param> {};

TEST_P(EmuSweep, MatchesCpuReference) {
  const SelftestCase& c = cases()[GetParam().index];
  const Force force = GetParam().force;
  static const emu::Order orders[] = {emu::Order::Forward, emu::Order::Reverse, emu::Order::Random};
  emu::Config config;
  config.order = orders[(GetParam().index + static_cast<std::size_t>(force)) % 3];
  config.seed = GetParam().index;
  emu::set_config(config);
  SCOPED_TRACE(c.label + ", " + emu::order_name(config.order) + " order");

  const Prepared p = prepare(c.build());
  std::unique_ptr<Backend> emu_backend = make_cuda_emu_backend();
  ASSERT_EQ(emu_backend->unsupported_reason(p), "") << "the sweep holds only GPU dtypes";
  Backend& reference = *BackendRegistry::instance().find("cpu-reference");
  const Result want = run_prepared(p, reference);
  Result got;
  bool forced = false;
  run_emulated(p, got, [&](Plan& plan) {
    if (force == Force::Index64) {
      ASSERT_FALSE(plan.index64) << "the sweep's shapes are small";
      plan.index64 = true;
    } else if (force == Force::OtherVariant) {
      force_other_variant(plan, p);
    }
    forced = true;
  });
  EXPECT_TRUE(forced);
  EXPECT_TRUE(got.timings.empty()) << "the emulator has no device clock";
  const CaseOutcome o = compare_results(got, want, p.t);
  EXPECT_EQ(o.status, CaseStatus::Pass) << o.detail << " (worst " << o.worst << ")";
}

bool is_large(const SelftestCase& c) {
  return c.label.find("[27,131,127,6]") != std::string::npos;
}

// The large shape (2.7 M values) reaches the same variants as the small ones; emulated it takes
// seconds a run, so only the V3 float32 training cases keep it (both layouts, both reserve
// conventions, both averaging factors), which the planner sends through split-m.
bool large_kept(const std::string& label) {
  return label.find("float32") != std::string::npos && label.find(" train") != std::string::npos &&
         (label.rfind("FusedBatchNormGradV3 ", 0) == 0 || label.rfind("FusedBatchNormV3 ", 0) == 0);
}

std::vector<Param> params() {
  std::vector<Param> out;
  for (std::size_t i = 0; i < cases().size(); ++i) {
    if (is_large(cases()[i]) && !large_kept(cases()[i].label)) continue;
    out.push_back({i, Force::None});
    const std::string& label = cases()[i].label;
    // The forward statistics always take split-m (their second stage); only grads have both.
    const bool grad = label.find("Grad") != std::string::npos;
    // The large shape already takes split-m on its own plan; forcing variants on it is the
    // same code at 2.7 M values a run, so the small shapes carry the forced paths.
    if (grad && !is_large(cases()[i])) out.push_back({i, Force::OtherVariant});
    if (!is_large(cases()[i]) && i % 2 == 0) out.push_back({i, Force::Index64});
  }
  return out;
}

std::string param_name(const testing::TestParamInfo<Param>& info) {
  const char* force[] = {"plan", "other_variant", "index64"};
  std::string s = std::to_string(info.param.index) + "_" +
                  force[static_cast<int>(info.param.force)] + "_" + cases()[info.param.index].label;
  for (char& ch : s)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(CudaEmu, EmuSweep, testing::ValuesIn(params()), param_name);

// Both variants and both index widths must really be reached by the parameters above.
TEST(EmuSweepCoverage, ReachesBothVariantsAndTheWideIndexPath) {
  bool cta = false, split = false;
  for (const SelftestCase& c : cases()) {
    if (c.label.find("Grad") == std::string::npos) continue;
    const Prepared p = prepare(c.build());
    Result r;
    run_emulated(p, r, [&](Plan& plan) {
      cta = cta || plan.variant == Variant::CtaPerGroup;
      split = split || plan.variant == Variant::SplitM;
    });
    if (cta && split) break;
  }
  // The planner alone picks both somewhere in the sweep; the forced runs cover the rest.
  EXPECT_TRUE(cta);
  EXPECT_TRUE(split);
}

}  // namespace
}  // namespace bnscope::gpu
