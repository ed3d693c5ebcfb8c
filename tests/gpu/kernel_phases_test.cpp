// What the cuda backends say of their phases (kernel_phases, Backend::phase_plan) against what a
// run really times: the ranges the kernels open, recorded by a runtime around the emulator's, for
// every op family, both modes and each reduction variant.

#include "kernel_phases.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "emu_backend.h"
#include "emulator.h"
#include "host_runtime.h"
#include "kernel_runner.h"
#include "ops/prepared.h"
#include "ops/sample.h"
#include "plan_variants.h"

namespace bnscope::gpu {
namespace {

// The emulator's runtime, with the name of every phase opened on it kept.
class RecordingRuntime : public DeviceRuntime {
 public:
  std::vector<std::string> phases;

  void* allocate(std::size_t bytes) override { return rt_.allocate(bytes); }
  void release(void* p) noexcept override { rt_.release(p); }
  void copy_to_device(void* d, const void* s, std::size_t n, Stream st) override {
    rt_.copy_to_device(d, s, n, st);
  }
  void copy_to_host(void* d, const void* s, std::size_t n, Stream st) override {
    rt_.copy_to_host(d, s, n, st);
  }
  void fill_zero(void* d, std::size_t n, Stream st) override { rt_.fill_zero(d, n, st); }
  void copy_on_device(void* d, const void* s, std::size_t n, Stream st) override {
    rt_.copy_on_device(d, s, n, st);
  }
  Stream create_stream() override { return rt_.create_stream(); }
  void destroy_stream(Stream s) noexcept override { rt_.destroy_stream(s); }
  void synchronize(Stream s) override { rt_.synchronize(s); }
  bool has_device_clock() const override { return false; }
  Event create_event() override { return rt_.create_event(); }
  void destroy_event(Event e) noexcept override { rt_.destroy_event(e); }
  void record(Event e, Stream s) override { rt_.record(e, s); }
  double elapsed_seconds(Event a, Event b) override { return rt_.elapsed_seconds(a, b); }
  // "bnscope/<op>/<backend>/<phase>": the phase is what follows the third slash.
  void range_push(const std::string& name) override {
    std::size_t at = std::string::npos, from = 0;
    for (int i = 0; i < 3 && (at = name.find('/', from)) != std::string::npos; ++i) from = at + 1;
    phases.push_back(name.substr(from));
  }
  void range_pop() noexcept override {}
  DeviceLimits limits() const override { return rt_.limits(); }
  const KernelLaunchers& kernels() const override { return rt_.kernels(); }

 private:
  DeviceRuntime& rt_ = host_runtime();
};

Prepared problem(const char* op, bool training, DataFormat format = DataFormat::NHWC,
                 Shape shape = {4, 6, 5, 8}) {
  SampleSpec spec;
  spec.op = op;
  spec.shape = shape;
  spec.format = format;
  spec.dtype = DType::F32;
  spec.is_training = training;
  spec.seed = 11;
  return prepare(random_problem(spec));
}

std::vector<std::string> names(const std::vector<PhaseInfo>& plan) {
  std::vector<std::string> n;
  for (const PhaseInfo& p : plan) n.push_back(p.name);
  return n;
}

class Target {
 public:
  explicit Target(bool cooperative) : saved_(emu::config()) {
    emu::Config c = saved_;
    c.target.cooperative_launch = cooperative;
    emu::set_config(c);
  }
  ~Target() { emu::set_config(saved_); }

 private:
  emu::Config saved_;
};

TEST(KernelPhases, AreThePhasesARunOpensForEveryOpAndVariant) {
  struct Case {
    const char* op;
    bool training;
    DataFormat format;
  };
  const Case cases[] = {{"FusedBatchNormGradV3", true, DataFormat::NHWC},
                        {"FusedBatchNormGradV3", true, DataFormat::NCHW},
                        {"FusedBatchNormGrad", false, DataFormat::NHWC},
                        {"BatchNormWithGlobalNormalizationGrad", false, DataFormat::NHWC},
                        {"FusedBatchNormV3", true, DataFormat::NHWC},
                        {"FusedBatchNormV3", false, DataFormat::NCHW}};
  std::set<Variant> grad_variants;
  for (const Case& c : cases) {
    const Prepared p = problem(c.op, c.training, c.format);
    for (bool cooperative : {true, false}) {
      for (bool flip : {false, true}) {
        Target target(cooperative);
        SCOPED_TRACE(std::string(c.op) + (c.training ? " training" : " inference") +
                     (cooperative ? ", cooperative target" : "") + (flip ? ", other variant" : ""));
        PlanOverride change;
        if (flip) change = [&](Plan& plan) { force_other_variant(plan, p); };
        RecordingRuntime rt;
        Result r;
        run_kernels(rt, p, r, "cuda-emu", change);
        const Plan plan = plan_for(rt, p, change);
        EXPECT_EQ(names(kernel_phases(p, plan)), rt.phases);
        if (p.op->is_grad && c.training) grad_variants.insert(plan.variant);
      }
    }
  }
  EXPECT_EQ(grad_variants.size(), 3u) << "single pass, one CTA per group and split M each run";
}

TEST(KernelPhases, ModelTheTensorsEachKernelMoves) {
  Target target(false);
  const Prepared p = problem("FusedBatchNormGradV3", true);
  Plan plan = plan_for(host_runtime(), p);
  plan.variant = Variant::SplitM;
  int moved = 0;
  for (const PhaseInfo& info : kernel_phases(p, plan))
    if (info.name.rfind("kernel:", 0) == 0) moved += info.x_tensors;
  // Two passes: x and dy read by the reduction, read again with dx written by the dx kernel.
  EXPECT_EQ(moved, 5);
  plan.variant = Variant::SinglePass;
  const std::vector<PhaseInfo> single = kernel_phases(p, plan);
  ASSERT_EQ(single.size(), 3u);
  EXPECT_EQ(single[1].x_tensors, 3) << "x and dy read once, dx written once";
  EXPECT_FALSE(single[1].description.empty());
}

TEST(KernelPhases, TheEmulatedBackendSaysThem) {
  const Prepared p = problem("FusedBatchNormGradV3", true);
  const std::unique_ptr<Backend> b = make_cuda_emu_backend();
  EXPECT_EQ(names(b->phase_plan(p, 0)), names(kernel_phases(p, plan_for(host_runtime(), p))));
  EXPECT_EQ(b->phase_plan(p, 0).front().name, "upload");
  EXPECT_EQ(b->phase_plan(p, 0).back().name, "download");
}

}  // namespace
}  // namespace bnscope::gpu
