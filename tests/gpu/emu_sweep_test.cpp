// The device sweep on cuda-emu against cpu-reference, with the tolerances used on a device: every
// case of the selftest sweep (op x data format x mode x reserve convention x dtype on the device
// tests' shapes) with the planner's plan, again with the other reduction variant forced (grad
// ops: cta-per-group <-> split-m; forward: 40 split-m slices), and with the 64-bit index path
// forced. Cases rotate through the three thread orders; nothing skips. The release build runs the
// whole sweep; the sanitizer build one case in four and not the large shape.

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <string>

#include "backends/backend.h"
#include "emu_backend.h"
#include "emulator.h"
#include "engine/engine.h"
#include "ops/prepared.h"
#include "ops/sample.h"
#include "plan_variants.h"
#include "profile/profiler.h"
#include "selftest.h"

namespace bnscope::gpu {
namespace {

const std::vector<SelftestCase>& cases() {
  static const std::vector<SelftestCase> c = selftest_cases();
  return c;
}

enum class Force { None, OtherVariant, Index64 };

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
  const CaseOutcome o = compare_case(p, got, want);
  EXPECT_EQ(o.status, CaseStatus::Pass) << o.detail << " (worst " << o.worst << ")";
}

bool is_large(const SelftestCase& c) {
  return c.label.find("[27,131,127,6]") != std::string::npos;
}

// The large shape (2.7 M values) reaches the same variants as the small ones; emulated it takes
// seconds a run (a minute and more under the sanitizers), so only the V3 float32 training cases
// with the variance convention and factor 1 keep it, in both layouts: the planner sends them
// through split-m on its own.
bool large_kept(const std::string& label) {
  const bool grad = label.rfind("FusedBatchNormGradV3 ", 0) == 0 &&
                    label.find(" training variance ") != std::string::npos;
  const bool forward =
      label.rfind("FusedBatchNormV3 ", 0) == 0 && label.find(" training f=1 ") != std::string::npos;
  return label.find("float32") != std::string::npos && (grad || forward);
}

#if defined(BNSCOPE_SANITIZED)
constexpr bool kSanitized = true;  // minutes per large-shape run: the release job runs those
#else
constexpr bool kSanitized = false;
#endif

// The sanitizer job looks for memory errors, not for numbers the release job already checks over
// the whole sweep: it runs one case in kSanitizedStride, which still reaches every op, layout and
// dtype (the coverage test below says so), in a few minutes instead of a quarter of an hour.
constexpr std::size_t kSanitizedStride = 4;

std::vector<Param> params() {
  std::vector<Param> out;
  for (std::size_t i = 0; i < cases().size(); ++i) {
    if (is_large(cases()[i]) && (kSanitized || !large_kept(cases()[i].label))) continue;
    if (kSanitized && i % kSanitizedStride != 0) continue;
    out.push_back({i, Force::None});
    // The large shape already takes split-m on its own plan; forcing variants on it is the
    // same code at 2.7 M values a run, so the small shapes carry the forced paths.
    if (!is_large(cases()[i])) out.push_back({i, Force::OtherVariant});
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

// Whatever the build, the sweep's parameters reach every op, both layout families and every dtype.
TEST(EmuSweepCoverage, ReachesEveryOpLayoutAndDtype) {
  std::set<std::string> seen;
  for (const Param& p : params()) {
    const std::string& label = cases()[p.index].label;
    seen.insert(label.substr(0, label.find(' ')));
    for (const char* key : {"NHWC", "NCHW", "float16", "bfloat16", "float32"})
      if (label.find(key) != std::string::npos) seen.insert(key);
  }
  for (const OpSpec& op : op_catalog()) EXPECT_TRUE(seen.count(std::string(op.name))) << op.name;
  for (const char* key : {"NHWC", "NCHW", "float16", "bfloat16", "float32"})
    EXPECT_TRUE(seen.count(key)) << key;
}

// large_kept reads the selftest's labels: a renamed label must not drop the large shape silently.
TEST(EmuSweepCoverage, KeepsTheLargeShapeOutsideTheSanitizers) {
  std::size_t large = 0;
  for (const Param& p : params()) large += is_large(cases()[p.index]);
  if (kSanitized)
    EXPECT_EQ(large, 0u);
  else
    EXPECT_GE(large, 4u) << "V3 float32 training, grad and forward, in both layouts";
}

// Both variants and both index widths must really be reached by the parameters above.
TEST(EmuSweepCoverage, ReachesBothVariantsAndTheWideIndexPath) {
  bool cta = false, split = false;
  for (const SelftestCase& c : cases()) {
    if (c.label.find("Grad") == std::string::npos) continue;
    const Prepared p = prepare(c.build());
    Result r;
    struct Planned {};  // stops the run once the plan is known
    try {
      run_emulated(p, r, [&](Plan& plan) {
        cta = cta || plan.variant == Variant::CtaPerGroup;
        split = split || plan.variant == Variant::SplitM;
        throw Planned{};
      });
    } catch (const Planned&) {
    }
    if (cta && split) break;
  }
  // The planner alone picks both somewhere in the sweep; the forced runs cover the rest.
  EXPECT_TRUE(cta);
  EXPECT_TRUE(split);
}

// Shapes that reach the planner's other branches: partial channel groups (C = 33 over groups of
// 32), small channel counts with many positions (split-m over a shared-memory tree), NCHW planes
// long enough to split, one value; blocks spread over two host threads.
TEST(EmuPlannerBranches, MatchCpuReferenceInEveryOrder) {
  struct Shape_ {
    Shape shape;
    DataFormat format;
  };
  const Shape_ shapes[] = {{{2, 3, 5, 33}, DataFormat::NHWC},
                           {{1, 1, 3000, 5}, DataFormat::NHWC},
                           {{2, 60, 50, 3}, DataFormat::NCHW},
                           {{1, 1, 1, 1}, DataFormat::NCHW}};
  Backend& reference = *BackendRegistry::instance().find("cpu-reference");
  std::unique_ptr<Backend> emu_backend = make_cuda_emu_backend();
  std::uint64_t seed = 1;
  for (const Shape_& sh : shapes)
    for (const char* op : {"FusedBatchNormGradV3", "FusedBatchNormV3"})
      for (bool training : {true, false})
        for (emu::Order order : {emu::Order::Forward, emu::Order::Reverse, emu::Order::Random}) {
          SampleSpec spec;
          spec.op = op;
          spec.shape = sh.shape;
          spec.format = sh.format;
          spec.is_training = training;
          spec.seed = seed++;
          emu::Config config;
          config.order = order;
          config.seed = spec.seed;
          config.host_threads = 2;
          emu::set_config(config);
          const Prepared p = prepare(random_problem(spec));
          SCOPED_TRACE(std::string(op) + " " + shape_str(sh.shape) + " " +
                       std::string(data_format_name(sh.format)) + " " +
                       std::string(mode_name(training)) + " " + emu::order_name(order));
          const Result want = run_prepared(p, reference);
          const Result got = run_prepared(p, *emu_backend);
          const CaseOutcome o = compare_case(p, got, want);
          EXPECT_EQ(o.status, CaseStatus::Pass) << o.detail;
        }
  emu::set_config({});
}

// The emulator has no device clock: a profile of cuda-emu is a host run (one "kernel:cpu" phase
// of wall time), never device phases with host times in them, and no device roofline.
TEST(CudaEmuBackend, ProfilingReportsHostTimeAsAHostRun) {
  BackendRegistry::instance().add(make_cuda_emu_backend());
  const SelftestCase& c = cases().front();
  ProfileOptions o;
  o.warmup = 0;
  o.reps = 2;
  o.measure_copy = false;
  o.device_peak_gbps = 3000;
  const Profile prof = profile_problem(c.build(), "cuda-emu", o);
  ASSERT_EQ(prof.phases.size(), 1u);
  EXPECT_TRUE(prof.host_run);
  EXPECT_EQ(prof.phases[0].phase, "kernel:cuda-emu");
  EXPECT_EQ(prof.roofline_source, "");
  EXPECT_EQ(prof.kernel_seconds, prof.wall.median);
}

}  // namespace
}  // namespace bnscope::gpu
