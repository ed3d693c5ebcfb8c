#pragma once
// The state the pieces of the emulator share (internal): a block's fibers, the rendezvous of its
// warps, and the block this host thread runs. emulator.cpp schedules the fibers, grid_runner.cpp
// sets a block up, fault_report.cpp describes what went wrong in one.

#include <ucontext.h>

#include <cstdint>
#include <exception>
#include <functional>
#include <vector>

#include "asan.h"
#include "device.h"  // before any CUDA header: it defines the CUDA keywords
#include "emulator.h"

namespace bnscope::emu::detail {

enum class State { Ready, Barrier, GridBarrier, Warp, Done };

class GridBarrier;

struct Fiber {
  ucontext_t ctx;
  uint3 idx;
  int linear = 0;
  State state = State::Ready;
  void* stack = nullptr;
};

struct WarpSlot {
  unsigned arrived = 0, mask = 0;
  WarpOp op = WarpOp::Sync;
  int width = 32;
  std::uint64_t value[32] = {};
  int arg[32] = {};
  std::uint64_t result[32] = {};
  std::uint64_t stamp = 0;  // bumped by each completed __syncwarp
};

struct BlockRun {
  const char* kernel = nullptr;
  uint3 block;
  dim3 block_dim, grid_dim;
  const std::function<void()>* body = nullptr;
  std::vector<Fiber> fibers;
  std::vector<WarpSlot> warps;
  int live = 0, at_barrier = 0;
  std::uint64_t epoch = 0;
  std::exception_ptr error;
  ucontext_t scheduler;
  SharedRegion* dynamic = nullptr;
  bool race_check = true;
  GridBarrier* grid = nullptr;  // a cooperative launch's; null otherwise
  int at_grid = 0;
#ifdef BNSCOPE_EMU_ASAN
  void* fake_stack = nullptr;
  // The scheduler's own stack (the host thread's), learnt when a fiber first runs.
  const void* scheduler_bottom = nullptr;
  std::size_t scheduler_size = 0;
#endif
};

// The block this host thread runs; null outside a kernel. Defined in emulator.cpp; constinit, so
// the other files read it directly instead of through a thread_local initialization wrapper.
extern constinit thread_local BlockRun* g_block;

inline uint3 thread_coords(const BlockRun& b, int linear) {
  const auto l = static_cast<unsigned>(linear);
  return {l % b.block_dim.x, l / b.block_dim.x % b.block_dim.y,
          l / (b.block_dim.x * b.block_dim.y)};
}

// Runs every thread of block b.block to its end as fibers on this host thread (emulator.cpp);
// throws the first fault.
void run_block(BlockRun& b, const Config& c);

}  // namespace bnscope::emu::detail
