// The device copy probe, the GPU roofline: it copies on the runtime it is given, counts read plus
// write, is labelled emulated on the emulator's runtime, and a profile takes it as roofline for
// an emulated or device backend with the run's bytes, never for a CPU backend.

#include "copy_probe.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "backends/backend.h"
#include "emu_backend.h"
#include "host_runtime.h"
#include "ops/sample.h"
#include "profile/profiler.h"

namespace bnscope::gpu {
namespace {

TEST(DeviceCopyProbe, CopiesOnTheRuntimeAndSaysWhenEmulated) {
  DeviceRuntime& rt = host_runtime();
  std::vector<unsigned char> in(4096), out(4096, 0);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<unsigned char>(i * 7);
  void* a = rt.allocate(in.size());
  void* b = rt.allocate(in.size());
  rt.copy_to_device(a, in.data(), in.size(), nullptr);
  rt.copy_on_device(b, a, in.size(), nullptr);
  rt.copy_to_host(out.data(), b, out.size(), nullptr);
  rt.release(a);
  rt.release(b);
  EXPECT_EQ(out, in);
  const DeviceCopy c = measure_device_copy(rt, std::size_t{8} << 20, 3);
  EXPECT_TRUE(c.emulated) << "the emulator has no device clock";
  EXPECT_GT(c.gbps, 0.0);
  EXPECT_GT(measure_device_copy(rt, 0, 1).gbps, 0.0) << "a zero-byte probe copies one byte";
}

Problem sample() {
  SampleSpec spec;
  spec.shape = {2, 8, 8, 16};
  return random_problem(spec);
}

TEST(DeviceCopyProbe, IsTheRooflineOfAnEmulatedBackendWithTheRunsBytes) {
  BackendRegistry::instance().add(make_cuda_emu_backend());
  ProfileOptions o;
  o.warmup = 0;
  o.reps = 1;
  o.measure_copy = false;
  std::size_t asked = 0;
  o.device_copy_probe = [&](std::size_t bytes) {
    asked = bytes;
    return DeviceCopy{123.0, true};
  };
  const Profile p = profile_problem(sample(), "cuda-emu", o);
  EXPECT_EQ(asked, static_cast<std::size_t>(p.traffic.data_bytes / 2))
      << "the copy moves the run's bytes (read plus write)";
  EXPECT_EQ(p.roofline_gbps, 123.0);
  EXPECT_NE(p.roofline_source.find("emulated"), std::string::npos) << p.roofline_source;
  EXPECT_NEAR(p.roofline_fraction, p.achieved_gbps / 123.0, 1e-12);
}

TEST(DeviceCopyProbe, IsNeverACpuBackendsRoofline) {
  ProfileOptions o;
  o.warmup = 0;
  o.reps = 1;
  o.copy_bytes = std::size_t{1} << 20;
  bool called = false;
  o.device_copy_probe = [&](std::size_t) {
    called = true;
    return DeviceCopy{1.0, false};
  };
  const Profile p = profile_problem(sample(), "cpu-reference", o);
  EXPECT_FALSE(called);
  EXPECT_EQ(p.roofline_source, "copy bandwidth measured in this run");
}

}  // namespace
}  // namespace bnscope::gpu
