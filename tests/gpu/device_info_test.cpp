#include "device_info.h"

#include <gtest/gtest.h>

namespace bnscope::gpu {
namespace {

TEST(DeviceInfo, PeakBandwidthFromClockAndBus) {
  // H100 SXM: HBM3 at 2619 MHz on a 5120-bit bus.
  EXPECT_NEAR(peak_bandwidth_bytes_per_s(2619000, 5120), 3.352e12, 1e9);
  // A GDDR-style 1 GHz clock on a 256-bit bus: 2 * 1e9 * 32 bytes.
  EXPECT_DOUBLE_EQ(peak_bandwidth_bytes_per_s(1000000, 256), 64e9);
  EXPECT_EQ(peak_bandwidth_bytes_per_s(0, 5120), 0.0);
  EXPECT_EQ(peak_bandwidth_bytes_per_s(2619000, 0), 0.0);
}

TEST(DeviceInfo, VersionText) {
  EXPECT_EQ(cuda_version_text(13000), "13.0");
  EXPECT_EQ(cuda_version_text(12040), "12.4");
  EXPECT_EQ(cuda_version_text(0), "none");
  EXPECT_EQ(cudnn_version_text(91900), "9.19.0");
  EXPECT_EQ(cudnn_version_text(90102), "9.1.2");
  EXPECT_EQ(cudnn_version_text(8907), "8.9.7");
  EXPECT_EQ(cudnn_version_text(0), "none");
}

TEST(DeviceInfo, Problems) {
  EXPECT_EQ(device_problem(13000, 13000, 9, 0), "");
  EXPECT_EQ(device_problem(13010, 13000, 8, 0), "");
  EXPECT_EQ(device_problem(12040, 13000, 9, 0),
            "CUDA driver too old: it supports CUDA 12.4, the runtime needs 13.0");
  EXPECT_EQ(device_problem(0, 13000, 9, 0), "no CUDA driver installed");
  EXPECT_NE(device_problem(13000, 13000, 7, 5).find("compute capability 7.5"), std::string::npos);
}

TEST(DeviceInfo, SummaryAndLimits) {
  DeviceInfo d;
  d.name = "NVIDIA H100 80GB HBM3";
  d.cc_major = 9;
  d.cc_minor = 0;
  d.sm_count = 132;
  d.total_memory_bytes = std::int64_t{80} * 1024 * 1024 * 1024;
  d.memory_clock_khz = 2619000;
  d.bus_width_bits = 5120;
  d.max_grid_y = 65535;
  EXPECT_EQ(d.summary(), "NVIDIA H100 80GB HBM3, sm_90, 132 SMs, 80.0 GiB, 3.35 TB/s peak");
  EXPECT_EQ(d.limits().sm_count, 132);
  DeviceInfo none;
  EXPECT_EQ(none.limits().sm_count, DeviceLimits{}.sm_count) << "defaults without a device";
}

// An A100's per-SM resources reach the planner's limits (and so its co-resident grids).
TEST(DeviceInfo, PerSmResourcesReachTheLimits) {
  DeviceInfo d;
  d.sm_count = 108;
  d.max_threads_per_sm = 2048;
  d.max_blocks_per_sm = 32;
  d.registers_per_sm = 65536;
  d.shared_per_sm = 167936;
  d.shared_per_block_optin = 166912;
  d.reserved_shared_per_block = 1024;
  d.l2_cache_bytes = 40 * 1024 * 1024;
  d.cooperative_launch = false;
  const DeviceLimits l = d.limits();
  EXPECT_EQ(l.shared_per_sm, 167936);
  EXPECT_EQ(l.max_shared_per_block_optin, 166912);
  EXPECT_EQ(l.reserved_shared_per_block, 1024);
  EXPECT_EQ(l.l2_bytes, 40 * 1024 * 1024);
  EXPECT_FALSE(l.cooperative_launch);
  DeviceInfo none;
  EXPECT_EQ(none.limits().shared_per_sm, DeviceLimits{}.shared_per_sm);
  EXPECT_TRUE(none.limits().cooperative_launch);
}

}  // namespace
}  // namespace bnscope::gpu
