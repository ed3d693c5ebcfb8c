// The CUDA execution emulator: device semantics (thread and block indices, barriers, warp
// shuffles and votes, static and dynamic shared memory, atomics), identical results in every
// thread order, and a planted bug of each kind reported with kernel, block, thread and address.

// device.h first: the kernels below are device code compiled as host C++.
#include "device.h"
// clang-format off
#include <gtest/gtest.h>
// clang-format on

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace bnscope::emu {
namespace {

const Order kOrders[] = {Order::Forward, Order::Reverse, Order::Random};

class OrderScope {
 public:
  explicit OrderScope(Order o, int host_threads = 1, bool race_check = true) : saved_(config()) {
    Config c;
    c.order = o;
    c.seed = 7;
    c.host_threads = host_threads;
    c.race_check = race_check;
    set_config(c);
  }
  ~OrderScope() { set_config(saved_); }

 private:
  Config saved_;
};

// The fault message of a launch that must fail, or "" when it did not.
template <class F>
std::string fault_of(F&& launch) {
  try {
    launch();
  } catch (const Fault& f) {
    return f.what();
  }
  return "";
}

// ---- correct kernels ----------------------------------------------------------------------

// Block sum through a static shared array, a shared tree and a warp butterfly.
__global__ void block_sum_kernel(const int* in, int* out) {
  __shared__ SharedArray<int, 128> tile;
  const unsigned t = threadIdx.x;
  tile[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned stride = 64; stride >= 32; stride >>= 1) {
    if (t < stride) tile[t] += tile[t + stride];
    __syncthreads();
  }
  if (t < 32) {
    int v = tile[t];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    if (t == 0) out[blockIdx.x] = v;
  }
}

TEST(Emulator, BlockSumIsTheSameInEveryOrderAndOnTwoHostThreads) {
  std::vector<int> in(4 * 128);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<int>(i * 7 % 31);
  std::vector<int> want(4, 0);
  for (std::size_t i = 0; i < in.size(); ++i) want[i / 128] += in[i];
  for (Order o : kOrders)
    for (int threads : {1, 2}) {
      SCOPED_TRACE(std::string(order_name(o)) + " on " + std::to_string(threads));
      const OrderScope scope(o, threads);
      std::vector<int> out(4, -1);
      launch("block_sum_kernel", block_sum_kernel, dim3(4), dim3(128), 0, in.data(), out.data());
      EXPECT_EQ(out, want);
    }
}

__global__ void index_kernel(unsigned* out) {
  const unsigned block = (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
  const unsigned t = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  out[block * blockDim.x * blockDim.y * blockDim.z + t] = block * 1000 + t;
}

TEST(Emulator, ThreadAndBlockIndicesCoverTheGridOnce) {
  std::vector<unsigned> out(2 * 3 * 2 * 4 * 2 * 3, 0xffffffffu);
  launch("index_kernel", index_kernel, dim3(2, 3, 2), dim3(4, 2, 3), 0, out.data());
  for (unsigned b = 0; b < 12; ++b)
    for (unsigned t = 0; t < 24; ++t) EXPECT_EQ(out[b * 24 + t], b * 1000 + t);
}

__global__ void warp_ops_kernel(int* out) {
  const int lane = static_cast<int>(threadIdx.x);
  int* o = out + lane * 8;
  o[0] = __shfl_sync(0xffffffffu, lane * 10, 3);
  o[1] = __shfl_up_sync(0xffffffffu, lane * 10, 2);
  o[2] = __shfl_down_sync(0xffffffffu, lane * 10, 4);
  o[3] = __shfl_xor_sync(0xffffffffu, lane * 10, 5);
  o[4] = __shfl_sync(0xffffffffu, lane * 10, 1, 8);  // lane 1 of each group of 8
  o[5] = static_cast<int>(__ballot_sync(0xffffffffu, lane % 3 == 0));
  o[6] = __any_sync(0xffffffffu, lane == 17) + 2 * __all_sync(0xffffffffu, lane < 32);
  __syncwarp();
  o[7] = lane < 16 ? __shfl_xor_sync(0x0000ffffu, lane, 1) : -1;
}

TEST(Emulator, ShufflesAndVotesMatchTheirDeviceDefinitions) {
  unsigned ballot = 0;
  for (int l = 0; l < 32; l += 3) ballot |= 1u << l;
  for (Order o : kOrders) {
    const OrderScope scope(o);
    std::vector<int> out(32 * 8, -99);
    launch("warp_ops_kernel", warp_ops_kernel, dim3(1), dim3(32), 0, out.data());
    for (int l = 0; l < 32; ++l) {
      const int* r = &out[static_cast<std::size_t>(l) * 8];
      EXPECT_EQ(r[0], 30);
      EXPECT_EQ(r[1], (l >= 2 ? l - 2 : l) * 10);
      EXPECT_EQ(r[2], (l + 4 < 32 ? l + 4 : l) * 10);
      EXPECT_EQ(r[3], (l ^ 5) * 10);
      EXPECT_EQ(r[4], ((l & ~7) + 1) * 10);
      EXPECT_EQ(static_cast<unsigned>(r[5]), ballot);
      EXPECT_EQ(r[6], 3);
      EXPECT_EQ(r[7], l < 16 ? l ^ 1 : -1);
    }
  }
}

__global__ void dynamic_shared_kernel(float* out, int n) {
  const auto s = dynamic_shared<float>();
  s[threadIdx.x] = static_cast<float>(threadIdx.x) + 0.5f;
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = s[(threadIdx.x + 1) % static_cast<unsigned>(n)];
}

TEST(Emulator, DynamicSharedMemoryHasTheLaunchSize) {
  std::vector<float> out(2 * 64);
  launch("dynamic_shared_kernel", dynamic_shared_kernel, dim3(2), dim3(64), 64 * sizeof(float),
         out.data(), 64);
  for (unsigned i = 0; i < out.size(); ++i)
    EXPECT_EQ(out[i], static_cast<float>((i + 1) % 64) + 0.5f);
}

__global__ void atomic_kernel(unsigned long long* total, float* sum) {
  atomicAdd(total, static_cast<unsigned long long>(threadIdx.x + 1));
  atomicAdd(sum, 1.0f);
}

TEST(Emulator, AtomicsAreAtomicAcrossHostThreads) {
  const OrderScope scope(Order::Forward, 2);
  unsigned long long total = 0;
  float sum = 0;
  launch("atomic_kernel", atomic_kernel, dim3(16), dim3(64), 0, &total, &sum);
  EXPECT_EQ(total, 16ull * 64 * 65 / 2);
  EXPECT_EQ(sum, 1024.0f);
}

__global__ void helper_with_barrier_kernel(int* out) {
  __shared__ SharedArray<int, 64> a;
  a[threadIdx.x] = static_cast<int>(threadIdx.x);
  if (threadIdx.x >= 32) return;  // exited threads no longer count at the barrier
  __syncthreads();
  out[threadIdx.x] = a[threadIdx.x + 32];
}

TEST(Emulator, ExitedThreadsDoNotHoldABarrier) {
  std::vector<int> out(32, -1);
  launch("helper_with_barrier_kernel", helper_with_barrier_kernel, dim3(1), dim3(64), 0,
         out.data());
  for (int i = 0; i < 32; ++i) EXPECT_EQ(out[static_cast<std::size_t>(i)], i + 32);
}

// Last writer wins: without the race check the orders visibly differ, which is what lets the
// sweep's order runs expose order-dependent kernels.
__global__ void last_writer_kernel(int* out) {
  __shared__ SharedArray<int, 1> slot;
  slot[0] = static_cast<int>(threadIdx.x);
  __syncthreads();
  if (threadIdx.x == 0) out[0] = slot[0];
}

TEST(Emulator, ForwardAndReverseOrdersRunThreadsDifferently) {
  int forward = -1, reverse = -1;
  {
    const OrderScope scope(Order::Forward, 1, false);
    launch("last_writer_kernel", last_writer_kernel, dim3(1), dim3(64), 0, &forward);
  }
  {
    const OrderScope scope(Order::Reverse, 1, false);
    launch("last_writer_kernel", last_writer_kernel, dim3(1), dim3(64), 0, &reverse);
  }
  EXPECT_EQ(forward, 63);
  EXPECT_EQ(reverse, 0);
}

// ---- planted bugs -------------------------------------------------------------------------

// Missing __syncthreads between the shared writes and the neighbour's read.
__global__ void missing_barrier_kernel(int* out) {
  __shared__ SharedArray<int, 64> a;
  a[threadIdx.x] = static_cast<int>(threadIdx.x);
  out[threadIdx.x] = a[(threadIdx.x + 1) % 64];
}

TEST(EmulatorChecks, MissingSyncthreadsIsAReportedRaceInEveryOrder) {
  for (Order o : kOrders) {
    SCOPED_TRACE(order_name(o));
    const OrderScope scope(o);
    std::vector<int> out(64);
    const std::string f = fault_of([&] {
      launch("missing_barrier_kernel", missing_barrier_kernel, dim3(1), dim3(64), 0, out.data());
    });
    EXPECT_NE(f.find("shared-memory race"), std::string::npos) << f;
    EXPECT_NE(f.find("kernel missing_barrier_kernel"), std::string::npos) << f;
    EXPECT_NE(f.find("block (0,0,0)"), std::string::npos) << f;
    EXPECT_NE(f.find("thread ("), std::string::npos) << f;
    EXPECT_NE(f.find("static shared array +0x"), std::string::npos) << f;
  }
}

// Two threads write the same word between barriers.
__global__ void write_race_kernel(int* out) {
  const auto s = dynamic_shared<int>();
  s[threadIdx.x / 2] = static_cast<int>(threadIdx.x);
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x / 2];
}

TEST(EmulatorChecks, TwoWritersOfOneWordAreAReportedRace) {
  std::vector<int> out(32);
  const std::string f = fault_of([&] {
    launch("write_race_kernel", write_race_kernel, dim3(3), dim3(32), 16 * sizeof(int), out.data());
  });
  EXPECT_NE(f.find("shared-memory race"), std::string::npos) << f;
  EXPECT_NE(f.find("writes dynamic shared memory +0x0"), std::string::npos) << f;
  EXPECT_NE(f.find("thread (0,0,0)"), std::string::npos) << f;
}

// The tree reads its partner before the partner's previous-round write is fenced.
__global__ void tree_without_barrier_kernel(int* out) {
  __shared__ SharedArray<int, 64> a;
  a[threadIdx.x] = 1;
  __syncthreads();
  for (unsigned s = 32; s > 0; s >>= 1)
    if (threadIdx.x < s) a[threadIdx.x] += a[threadIdx.x + s];  // no barrier per level
  __syncthreads();
  if (threadIdx.x == 0) out[0] = a[0];
}

TEST(EmulatorChecks, AReductionTreeWithoutLevelBarriersIsReported) {
  int out = 0;
  const std::string f = fault_of([&] {
    launch("tree_without_barrier_kernel", tree_without_barrier_kernel, dim3(1), dim3(64), 0, &out);
  });
  EXPECT_NE(f.find("shared-memory race"), std::string::npos) << f;
}

__global__ void out_of_bounds_shared_kernel(int* out) {
  const auto s = dynamic_shared<int>();
  s[threadIdx.x + 1] = 1;  // one past the end for the last thread
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];
}

TEST(EmulatorChecks, AnOutOfBoundsSharedIndexIsReported) {
  std::vector<int> out(32);
  const std::string f = fault_of([&] {
    launch("out_of_bounds_shared_kernel", out_of_bounds_shared_kernel, dim3(1), dim3(32),
           32 * sizeof(int), out.data());
  });
  EXPECT_NE(f.find("bounds check"), std::string::npos) << f;
  EXPECT_NE(f.find("thread (31,0,0)"), std::string::npos) << f;
  EXPECT_NE(f.find("index 32 reaches byte 128 of dynamic shared memory (128 bytes)"),
            std::string::npos)
      << f;
}

// The mask names all 32 lanes but only half the warp reaches the shuffle.
__global__ void wrong_mask_kernel(int* out) {
  if (threadIdx.x < 16) out[threadIdx.x] = __shfl_xor_sync(0xffffffffu, 1, 1);
}

TEST(EmulatorChecks, AMaskNamingLanesThatNeverArriveIsReported) {
  for (Order o : kOrders) {
    SCOPED_TRACE(order_name(o));
    const OrderScope scope(o);
    std::vector<int> out(32);
    const std::string f = fault_of(
        [&] { launch("wrong_mask_kernel", wrong_mask_kernel, dim3(1), dim3(32), 0, out.data()); });
    EXPECT_NE(f.find("warp check"), std::string::npos) << f;
    EXPECT_NE(f.find("kernel wrong_mask_kernel"), std::string::npos) << f;
    EXPECT_NE(f.find("exited"), std::string::npos) << f;
  }
}

// The mask leaves out the lanes the shuffle reads from.
__global__ void mask_misses_source_kernel(int* out) {
  out[threadIdx.x] = __shfl_down_sync(0x0000ffffu, 1, 8);
}

TEST(EmulatorChecks, ReadingALaneOutsideTheMaskIsReported) {
  std::vector<int> out(16);
  const std::string f = fault_of([&] {
    launch("mask_misses_source_kernel", mask_misses_source_kernel, dim3(1), dim3(16), 0,
           out.data());
  });
  EXPECT_NE(f.find("warp check"), std::string::npos) << f;
  EXPECT_NE(f.find("is not in the mask"), std::string::npos) << f;
}

__global__ void source_lane_out_of_range_kernel(int* out) {
  out[threadIdx.x] = __shfl_sync(0xffffffffu, 1, static_cast<int>(threadIdx.x) + 1);
}

TEST(EmulatorChecks, ASourceLaneOutOfRangeIsReported) {
  std::vector<int> out(32);
  const std::string f = fault_of([&] {
    launch("source_lane_out_of_range_kernel", source_lane_out_of_range_kernel, dim3(1), dim3(32), 0,
           out.data());
  });
  EXPECT_NE(f.find("source lane 32 out of range [0, 32)"), std::string::npos) << f;
  EXPECT_NE(f.find("thread (31,0,0)"), std::string::npos) << f;
}

__global__ void shuffle_then_barrier_kernel(int* out) {
  int v = 1;
  if (threadIdx.x % 32 < 8)
    v = __shfl_xor_sync(0xffffffffu, v, 1);
  else
    __syncthreads();
  out[threadIdx.x] = v;
}

TEST(EmulatorChecks, LanesSplitBetweenAShuffleAndABarrierAreReported) {
  std::vector<int> out(64);
  const std::string f = fault_of([&] {
    launch("shuffle_then_barrier_kernel", shuffle_then_barrier_kernel, dim3(1), dim3(64), 0,
           out.data());
  });
  EXPECT_NE(f.find("warp check"), std::string::npos) << f;
}

TEST(EmulatorChecks, LaunchesOutsideTheDeviceLimitsAreRefused) {
  std::vector<int> out(2048);
  EXPECT_NE(fault_of([&] {
              launch("index_kernel", index_kernel, dim3(1), dim3(2048), 0,
                     reinterpret_cast<unsigned*>(out.data()));
            }).find("threads per block"),
            std::string::npos);
}

// The race check sees only shared memory declared through dynamic_shared<T>() or SharedArray; a
// plain `__shared__ T a[N]` in the device sources would compile in the emulator unchecked.
TEST(EmulatorChecks, DeviceSourcesDeclareSharedMemoryThroughCheckedTypes) {
  namespace fs = std::filesystem;
  const std::regex plain(R"(__shared__\s+(?!SharedArray<)(?!__align__)[A-Za-z_])");
  int files = 0;
  for (const char* dir : {"gpu/kernels", "gpu/blocks"})
    for (const auto& e : fs::directory_iterator(fs::path(BNSCOPE_SOURCE_DIR) / dir)) {
      const std::string ext = e.path().extension().string();
      if (ext != ".cu" && ext != ".cuh") continue;
      ++files;
      std::ifstream in(e.path());
      std::stringstream text;
      text << in.rdbuf();
      const std::string src = text.str();
      for (auto it = std::sregex_iterator(src.begin(), src.end(), plain);
           it != std::sregex_iterator(); ++it) {
        // shared.cuh's device branch is where the checked types map to the plain ones.
        const bool device_branch =
            e.path().filename() == "shared.cuh" &&
            src.compare(static_cast<std::size_t>(it->position()) - 7, 7, "extern ") == 0;
        EXPECT_TRUE(device_branch) << e.path() << ": " << it->str();
      }
    }
  EXPECT_GT(files, 5);
}

}  // namespace
}  // namespace bnscope::emu
