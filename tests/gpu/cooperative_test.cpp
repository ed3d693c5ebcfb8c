// Cooperative launches on the emulator: the grid-wide barrier orders global memory across blocks
// in every thread order, each resident block keeps its own shared memory, a grid that the target
// could not keep co-resident is refused before it runs (as cudaLaunchCooperativeKernel refuses
// it), and misuse of the barrier is a reported fault, never a hang.

// device.h first: the kernels below are device code compiled as host C++.
#include "device.h"
// clang-format off
#include <gtest/gtest.h>
// clang-format on

#include <string>
#include <vector>

namespace bnscope::emu {
namespace {

const Order kCooperativeOrders[] = {Order::Forward, Order::Reverse, Order::Random};

// A small target: 2 SMs with H100's per-SM limits, so co-resident grids stay a few blocks.
gpu::DeviceLimits small_target() {
  gpu::DeviceLimits d;
  d.sm_count = 2;
  return d;
}

class TargetScope {
 public:
  explicit TargetScope(const gpu::DeviceLimits& d, Order o = Order::Forward) : saved_(config()) {
    Config c;
    c.order = o;
    c.seed = 11;
    c.target = d;
    set_config(c);
  }
  ~TargetScope() { set_config(saved_); }

 private:
  Config saved_;
};

template <class F>
std::string cooperative_fault_of(F&& launch) {
  try {
    launch();
  } catch (const Fault& f) {
    return f.what();
  }
  return "";
}

gpu::KernelFootprint footprint(int registers) {
  gpu::KernelFootprint k;
  k.registers_per_thread = registers;
  return k;
}

// Each block sums its slice into partials[block], waits at the grid barrier, then every block
// sums all partials in the same order: every block must see every other block's partial.
__global__ void grid_total_kernel(const int* in, int* partials, int* totals) {
  __shared__ SharedArray<int, 64> tile;
  const unsigned t = threadIdx.x;
  tile[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  if (t == 0) {
    int s = 0;
    for (unsigned i = 0; i < blockDim.x; ++i) s += tile[i];
    partials[blockIdx.x] = s;
  }
  grid_sync();
  if (t == 0) {
    int s = 0;
    for (unsigned b = 0; b < gridDim.x; ++b) s += partials[b];
    totals[blockIdx.x] = s;
  }
}

TEST(Cooperative, GridBarrierMakesEveryBlocksPartialVisibleInEveryOrder) {
  constexpr int kBlocks = 6;
  std::vector<int> in(kBlocks * 64);
  int want = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    in[i] = static_cast<int>(i * 13 % 29) - 7;
    want += in[i];
  }
  for (Order o : kCooperativeOrders) {
    SCOPED_TRACE(order_name(o));
    const TargetScope scope(small_target(), o);
    std::vector<int> partials(kBlocks, 0), totals(kBlocks, -1);
    launch_cooperative("grid_total_kernel", grid_total_kernel, dim3(kBlocks), dim3(64), 0,
                       footprint(32), in.data(), partials.data(), totals.data());
    EXPECT_EQ(totals, std::vector<int>(kBlocks, want));
  }
}

// Static shared memory is per block on a device; all blocks resident at once must not share it.
// The barrier is passed twice: its reuse must hold as well.
__global__ void shared_per_block_kernel(int* out) {
  __shared__ SharedArray<int, 32> mine;
  const auto dyn = dynamic_shared<int>();
  mine[threadIdx.x] = static_cast<int>(blockIdx.x * 100 + threadIdx.x);
  dyn[threadIdx.x] = static_cast<int>(blockIdx.x);
  grid_sync();
  const int a = mine[threadIdx.x];
  grid_sync();
  out[blockIdx.x * blockDim.x + threadIdx.x] = a + 1000 * dyn[threadIdx.x];
}

TEST(Cooperative, ResidentBlocksKeepTheirOwnSharedMemoryAcrossTwoBarriers) {
  const TargetScope scope(small_target(), Order::Random);
  std::vector<int> out(4 * 32, -1);
  launch_cooperative("shared_per_block_kernel", shared_per_block_kernel, dim3(4), dim3(32),
                     32 * sizeof(int), footprint(32), out.data());
  for (int b = 0; b < 4; ++b)
    for (int t = 0; t < 32; ++t) EXPECT_EQ(out[b * 32 + t], b * 100 + t + 1000 * b);
}

__global__ void noop_barrier_kernel(int* out) {
  grid_sync();
  if (threadIdx.x == 0) out[blockIdx.x] = 1;
}

// 256 threads at 128 registers: 8 warps x 4096 registers = 32768 of an SM's 65536, so 2 blocks
// per SM, 4 on two SMs.
TEST(Cooperative, AGridAboveTheCoResidentLimitIsRefusedBeforeItRuns) {
  const TargetScope scope(small_target());
  std::vector<int> out(5, 0);
  const std::string f = cooperative_fault_of([&] {
    launch_cooperative("noop_barrier_kernel", noop_barrier_kernel, dim3(5), dim3(256), 0,
                       footprint(128), out.data());
  });
  EXPECT_NE(f.find("grid of 5 blocks cannot be co-resident"), std::string::npos) << f;
  EXPECT_NE(f.find("2 block(s) per SM (limited by registers)"), std::string::npos) << f;
  EXPECT_NE(f.find("at most 4"), std::string::npos) << f;
  EXPECT_EQ(out, std::vector<int>(5, 0)) << "nothing ran";
  launch_cooperative("noop_barrier_kernel", noop_barrier_kernel, dim3(4), dim3(256), 0,
                     footprint(128), out.data());
  EXPECT_EQ(out, (std::vector<int>{1, 1, 1, 1, 0}));
}

// 100 KiB of dynamic shared memory (plus the 1 KiB reserved per block) twice fits an SM's
// 228 KiB, three times does not.
TEST(Cooperative, SharedMemoryAndThreadsLimitTheCoResidentGridToo) {
  const TargetScope scope(small_target());
  std::vector<int> out(8, 0);
  std::string f = cooperative_fault_of([&] {
    launch_cooperative("noop_barrier_kernel", noop_barrier_kernel, dim3(5), dim3(32), 100 * 1024,
                       footprint(16), out.data());
  });
  EXPECT_NE(f.find("limited by shared memory"), std::string::npos) << f;
  // 1024 threads: 2 blocks fill an SM's 2048 threads.
  f = cooperative_fault_of([&] {
    launch_cooperative("noop_barrier_kernel", noop_barrier_kernel, dim3(5), dim3(1024), 0,
                       footprint(16), out.data());
  });
  EXPECT_NE(f.find("limited by threads"), std::string::npos) << f;
  gpu::DeviceLimits no_coop = small_target();
  no_coop.cooperative_launch = false;
  const TargetScope off(no_coop);
  f = cooperative_fault_of([&] {
    launch_cooperative("noop_barrier_kernel", noop_barrier_kernel, dim3(1), dim3(32), 0,
                       footprint(16), out.data());
  });
  EXPECT_NE(f.find("does not support cooperative launches"), std::string::npos) << f;
}

TEST(CooperativeChecks, AGridBarrierInAPlainLaunchIsReported) {
  const TargetScope scope(small_target());
  std::vector<int> out(2, 0);
  const std::string f = cooperative_fault_of([&] {
    launch("noop_barrier_kernel", noop_barrier_kernel, dim3(2), dim3(32), 0, out.data());
  });
  EXPECT_NE(f.find("not launched cooperatively"), std::string::npos) << f;
}

__global__ void early_exit_kernel(int* out) {
  if (blockIdx.x == 1) return;  // block 1 never reaches the barrier: a device would hang
  grid_sync();
  out[blockIdx.x] = 1;
}

TEST(CooperativeChecks, ABlockExitingWhileOthersWaitIsReportedNotAHang) {
  for (Order o : kCooperativeOrders) {
    const TargetScope scope(small_target(), o);
    std::vector<int> out(3, 0);
    const std::string f = cooperative_fault_of([&] {
      launch_cooperative("early_exit_kernel", early_exit_kernel, dim3(3), dim3(32), 0,
                         footprint(16), out.data());
    });
    EXPECT_NE(f.find("grid barrier: block"), std::string::npos) << f;
    EXPECT_NE(f.find("(1,0,0)"), std::string::npos) << "names the block that exited: " << f;
  }
}

// Block 2 races on shared memory before the barrier the others already wait at: the race is
// what is reported, and the waiting blocks are released.
__global__ void race_before_barrier_kernel(int* out) {
  const auto s = dynamic_shared<int>();
  if (blockIdx.x == 2) {
    s[threadIdx.x] = 1;
    out[threadIdx.x] = s[(threadIdx.x + 1) % blockDim.x];  // no __syncthreads
  }
  grid_sync();
}

TEST(CooperativeChecks, AFaultInOneBlockIsReportedWhileOthersWait) {
  const TargetScope scope(small_target());
  std::vector<int> out(32, 0);
  const std::string f = cooperative_fault_of([&] {
    launch_cooperative("race_before_barrier_kernel", race_before_barrier_kernel, dim3(4), dim3(32),
                       32 * sizeof(int), footprint(16), out.data());
  });
  EXPECT_NE(f.find("shared-memory race"), std::string::npos) << f;
  EXPECT_NE(f.find("block (2,0,0)"), std::string::npos) << f;
}

__global__ void split_barrier_kernel(int* out) {
  if (threadIdx.x < 16)
    grid_sync();
  else
    __syncthreads();
  out[threadIdx.x] = 1;
}

TEST(CooperativeChecks, ThreadsSplitBetweenGridAndBlockBarriersAreReported) {
  const TargetScope scope(small_target());
  std::vector<int> out(64, 0);
  const std::string f = cooperative_fault_of([&] {
    launch_cooperative("split_barrier_kernel", split_barrier_kernel, dim3(1), dim3(64), 0,
                       footprint(16), out.data());
  });
  EXPECT_NE(f.find("wait at the grid barrier while"), std::string::npos) << f;
}

}  // namespace
}  // namespace bnscope::emu
