// The block scheduler: the threads of a block as fibers on one host thread, resumed in the
// configured order until each reaches a barrier, a warp operation or its end; and the device
// builtins those threads call (indices, barriers, warp operations, the shared-memory race check).

// device.h first: it defines the CUDA keywords before any CUDA header does.
#include "device.h"
// clang-format off
#include "emulator.h"
// clang-format on

#include <ucontext.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <numeric>
#include <random>
#include <vector>

#include "asan.h"
#include "emulator_state.h"
#include "fault_report.h"
#include "fiber_stacks.h"
#include "grid_barrier.h"

#ifdef BNSCOPE_EMU_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

namespace bnscope::emu {

namespace detail {

constinit thread_local BlockRun* g_block = nullptr;

namespace {

thread_local Fiber* g_fiber = nullptr;
thread_local std::uint64_t g_stamp = 0;  // epochs and warp stamps, unique per host thread
thread_local StackPool g_stacks;
thread_local SlabStacks g_slab;            // a resident block's (one block per host thread)
thread_local bool g_stacks_dirty = false;  // a fault abandoned fibers mid-frame

std::uint64_t next_stamp() {
  return ++g_stamp;
}

BlockRun& block() {
  if (!g_block || !g_fiber) fault("emulator: a device builtin was used outside a kernel");
  return *g_block;
}

// Fiber switches, announced to AddressSanitizer so it follows the stack in use.
void switch_to_fiber(BlockRun& b, Fiber& f) {
#ifdef BNSCOPE_EMU_ASAN
  __sanitizer_start_switch_fiber(&b.fake_stack, f.stack, kStackBytes);
#endif
  swapcontext(&b.scheduler, &f.ctx);
#ifdef BNSCOPE_EMU_ASAN
  __sanitizer_finish_switch_fiber(b.fake_stack, nullptr, nullptr);
#endif
}

void switch_to_scheduler(BlockRun& b, Fiber& f, bool exiting) {
#ifdef BNSCOPE_EMU_ASAN
  void* fake = nullptr;
  __sanitizer_start_switch_fiber(exiting ? nullptr : &fake, b.scheduler_bottom, b.scheduler_size);
  swapcontext(&f.ctx, &b.scheduler);
  __sanitizer_finish_switch_fiber(fake, &b.scheduler_bottom, &b.scheduler_size);
#else
  (void)exiting;
  swapcontext(&f.ctx, &b.scheduler);
#endif
}

void fiber_main() {
  BlockRun& b = *g_block;
#ifdef BNSCOPE_EMU_ASAN
  __sanitizer_finish_switch_fiber(nullptr, &b.scheduler_bottom, &b.scheduler_size);
#endif
  Fiber& f = *g_fiber;
  try {
    (*b.body)();
  } catch (...) {
    if (!b.error) b.error = std::current_exception();
  }
  f.state = State::Done;
  --b.live;
  switch_to_scheduler(b, f, true);
}

std::vector<int> resume_order(const BlockRun& b, const Config& c, std::uint64_t round) {
  std::vector<int> order(b.fibers.size());
  std::iota(order.begin(), order.end(), 0);
  if (c.order == Order::Reverse) std::reverse(order.begin(), order.end());
  if (c.order == Order::Random) {
    const std::uint64_t blk =
        (static_cast<std::uint64_t>(b.block.z) * b.grid_dim.y + b.block.y) * b.grid_dim.x +
        b.block.x;
    std::mt19937_64 rng(c.seed * 0x9E3779B97F4A7C15ull ^ (blk << 20) ^ round);
    std::shuffle(order.begin(), order.end(), rng);
  }
  return order;
}

}  // namespace

void run_block(BlockRun& b, const Config& c) {
  const std::size_t n = b.fibers.size();
  if (g_stacks_dirty) {
#ifdef BNSCOPE_EMU_ASAN
    for (std::size_t i = 0; i < n; ++i) ASAN_UNPOISON_MEMORY_REGION(g_stacks.get(i), kStackBytes);
#endif
    g_stacks_dirty = false;
  }
  if (b.grid) g_slab.reset(n);
  for (std::size_t i = 0; i < n; ++i) {
    Fiber& f = b.fibers[i];
    f.linear = static_cast<int>(i);
    f.idx = thread_coords(b, f.linear);
    f.state = State::Ready;
    f.stack = b.grid ? g_slab.get(i) : g_stacks.get(i);
    getcontext(&f.ctx);
    f.ctx.uc_stack.ss_sp = f.stack;
    f.ctx.uc_stack.ss_size = kStackBytes;
    f.ctx.uc_link = nullptr;
    makecontext(&f.ctx, fiber_main, 0);
  }
  for (WarpSlot& w : b.warps) {
    w.arrived = 0;
    w.stamp = next_stamp();
  }
  b.live = static_cast<int>(n);
  b.at_barrier = 0;
  b.at_grid = 0;
  b.epoch = next_stamp();
  b.error = nullptr;
  for (std::uint64_t round = 0;; ++round) {
    const std::vector<int> order = resume_order(b, c, round);
    for (bool ran = true; ran;) {
      ran = false;
      for (int i : order) {
        Fiber& f = b.fibers[static_cast<std::size_t>(i)];
        if (f.state != State::Ready) continue;
        g_fiber = &f;
        switch_to_fiber(b, f);
        g_fiber = nullptr;
        ran = true;
        if (b.error) {
          g_stacks_dirty = true;
          std::rethrow_exception(b.error);
        }
      }
    }
    if (b.live == 0) {
      if (b.grid && g_slab.overflowed() >= 0)
        fault("emulator: " + where(b, static_cast<int>(g_slab.overflowed())) +
              " overflowed its fiber stack");
      return;
    }
    if (b.at_grid > 0 && b.at_barrier == 0 && b.at_grid == b.live) {
      g_stacks_dirty = true;  // until the barrier returns: a fault elsewhere abandons the fibers
      b.grid->arrive(b.block, b.kernel);
      g_stacks_dirty = false;
      b.epoch = next_stamp();  // the grid barrier orders shared memory as __syncthreads does
      b.at_grid = 0;
      for (Fiber& f : b.fibers)
        if (f.state == State::GridBarrier) f.state = State::Ready;
      continue;
    }
    if (b.at_grid > 0 && b.at_barrier > 0) {
      g_stacks_dirty = true;
      fault("grid barrier: in kernel " + std::string(b.kernel) + ", block " + xyz(b.block) + ", " +
            std::to_string(b.at_grid) + " thread(s) wait at the grid barrier while " +
            std::to_string(b.at_barrier) + " wait at __syncthreads");
    }
    if (b.at_barrier != b.live) {
      g_stacks_dirty = true;
      diagnose_stall(b);
    }
    b.epoch = next_stamp();
    b.at_barrier = 0;
    for (Fiber& f : b.fibers)
      if (f.state == State::Barrier) f.state = State::Ready;
  }
}

}  // namespace detail

void grid_sync() {
  using namespace detail;  // the scheduler's state and fault wording
  BlockRun& b = block();
  Fiber& f = *g_fiber;
  if (!b.grid)
    fault("grid barrier in " + where(b, f.linear) +
          ": the kernel was not launched cooperatively (a device needs "
          "cudaLaunchCooperativeKernel for a grid-wide sync)");
  check_no_lane_waits(b, f, "grid barrier");
  f.state = State::GridBarrier;
  ++b.at_grid;
  switch_to_scheduler(b, f, false);
}

const uint3& thread_idx() {
  detail::block();
  return detail::g_fiber->idx;
}
const uint3& block_idx() {
  return detail::block().block;
}
const dim3& block_dim() {
  return detail::block().block_dim;
}
const dim3& grid_dim() {
  return detail::block().grid_dim;
}

void sync_threads() {
  using namespace detail;
  BlockRun& b = block();
  Fiber& f = *g_fiber;
  check_no_lane_waits(b, f, "__syncthreads");
  f.state = State::Barrier;
  ++b.at_barrier;
  switch_to_scheduler(b, f, false);
}

std::uint64_t warp_op(WarpOp op, unsigned mask, std::uint64_t value, int arg, int width) {
  using namespace detail;
  BlockRun& b = block();
  Fiber& f = *g_fiber;
  const auto warp = static_cast<std::size_t>(f.linear / 32);
  const int lane = f.linear % 32;
  WarpSlot& w = b.warps[warp];
  // Built only for a report: warp operations are the emulator's hot path.
  const auto at = [&] {
    return std::string(op_name(op)) + " with mask " + hex(mask) + " in " + where(b, f.linear);
  };
  if (!(mask >> lane & 1u)) fault("warp check: " + at() + ": the calling lane is not in the mask");
  if (width < 1 || width > 32 || (width & (width - 1)))
    fault("warp check: " + at() + ": width " + std::to_string(width) +
          " is not a power of two <= 32");
  const std::size_t in_warp = std::min<std::size_t>(32, b.fibers.size() - warp * 32);
  const unsigned present = in_warp == 32 ? 0xffffffffu : (1u << in_warp) - 1u;
  if (mask & ~present)
    fault("warp check: " + at() + ": lanes " + lane_list(mask & ~present) +
          " named in the mask do not exist in this block");
  if (w.arrived == 0) {
    w.op = op;
    w.mask = mask;
    w.width = width;
  } else if (w.op != op || w.mask != mask || w.width != width) {
    fault("warp check: " + at() + " while lanes " + lane_list(w.arrived) + " of its warp wait at " +
          op_name(w.op) + " with mask " + hex(w.mask));
  }
  w.value[lane] = value;
  w.arg[lane] = arg;
  w.arrived |= 1u << lane;
  for (int l = 0; l < 32; ++l)
    if ((mask & ~w.arrived) >> l & 1u &&
        b.fibers[warp * 32 + static_cast<std::size_t>(l)].state == State::Done)
      fault("warp check: " + at() + ": lane " + std::to_string(l) +
            " named in the mask has exited and never arrives");
  if (w.arrived != mask) {
    f.state = State::Warp;
    switch_to_scheduler(b, f, false);
    return w.result[lane];
  }
  // The last lane completes the operation for all.
  std::uint64_t votes = 0;
  bool any = false, all = true;
  for (int l = 0; l < 32; ++l)
    if (mask >> l & 1u) {
      votes |= (w.value[l] ? 1ull : 0ull) << l;
      any = any || w.value[l];
      all = all && w.value[l];
    }
  for (int l = 0; l < 32; ++l) {
    if (!(mask >> l & 1u)) continue;
    const int seg = l & ~(width - 1);
    int src = l;
    switch (op) {
      case WarpOp::Shfl:
        if (w.arg[l] < 0 || w.arg[l] >= width)
          fault("warp check: __shfl_sync in " + where(b, static_cast<int>(warp) * 32 + l) +
                ": source lane " + std::to_string(w.arg[l]) + " out of range [0, " +
                std::to_string(width) + ")");
        src = seg + w.arg[l];
        break;
      case WarpOp::ShflUp:
        src = l - w.arg[l] >= seg ? l - w.arg[l] : l;
        break;
      case WarpOp::ShflDown:
        src = l + w.arg[l] < seg + width ? l + w.arg[l] : l;
        break;
      case WarpOp::ShflXor:
        if (w.arg[l] < 0 || w.arg[l] >= 32)
          fault("warp check: __shfl_xor_sync in " + where(b, static_cast<int>(warp) * 32 + l) +
                ": lane mask " + std::to_string(w.arg[l]) + " out of range [0, 32)");
        src = (l ^ w.arg[l]) < seg + width ? l ^ w.arg[l] : l;
        break;
      default:
        break;
    }
    if (!(mask >> src & 1u))
      fault("warp check: " + std::string(op_name(op)) + " with mask " + hex(mask) + " in " +
            where(b, static_cast<int>(warp) * 32 + l) + ": source lane " + std::to_string(src) +
            " is not in the mask");
    switch (op) {
      case WarpOp::Ballot:
        w.result[l] = votes;
        break;
      case WarpOp::Any:
        w.result[l] = any;
        break;
      case WarpOp::All:
        w.result[l] = all;
        break;
      default:
        w.result[l] = w.value[src];
    }
    if (l != lane) b.fibers[warp * 32 + static_cast<std::size_t>(l)].state = State::Ready;
  }
  if (op == WarpOp::Sync) w.stamp = next_stamp();
  w.arrived = 0;
  return w.result[lane];
}

SharedRegion& dynamic_shared_region() {
  return *detail::block().dynamic;
}

void SharedRegion::bind(unsigned char* base, std::size_t bytes) {
  base_ = base;
  bytes_ = bytes;
  cells_.assign(bytes, Cell{});
}

void SharedRegion::check(long long index, std::ptrdiff_t offset, std::size_t n) const {
  using namespace detail;
  if (offset >= 0 && static_cast<std::size_t>(offset) + n <= bytes_) return;
  const BlockRun& b = block();
  fault("shared-memory bounds check: " + where(b, g_fiber->linear) + ": index " +
        std::to_string(index) + " reaches byte " + std::to_string(offset) + " of " + what_ + " (" +
        std::to_string(bytes_) + " bytes)");
}

void SharedRegion::race(const char* what, std::size_t offset, int other) const {
  using namespace detail;
  const BlockRun& b = block();
  char addr[32];
  std::snprintf(addr, sizeof addr, "+0x%zx", offset);
  fault("shared-memory race: " + where(b, g_fiber->linear) + " " + what + " " + what_ + " " + addr +
        ", which thread " + xyz(thread_coords(b, other)) +
        (std::string(what) == "reads" ? " wrote" : " accessed") + " since the last __syncthreads");
}

namespace detail {
namespace {
// Whether an access of thread t is ordered after one of thread other stamped with warp stamp
// `then`: a __syncwarp of their common warp since then orders them.
bool warp_ordered(const BlockRun& b, int t, int other, std::uint64_t then) {
  return t / 32 == other / 32 && b.warps[static_cast<std::size_t>(t / 32)].stamp != then;
}
}  // namespace
}  // namespace detail

void SharedRegion::read(std::size_t offset, std::size_t n) {
  using namespace detail;
  BlockRun& b = block();
  if (!b.race_check) return;
  const int t = g_fiber->linear;
  const std::uint64_t stamp = b.warps[static_cast<std::size_t>(t / 32)].stamp;
  for (std::size_t i = offset; i < offset + n; ++i) {
    Cell& c = cells_[i];
    if (c.w_epoch == b.epoch && c.writer != t && !warp_ordered(b, t, c.writer, c.w_stamp))
      race("reads", offset, c.writer);
    if (c.r_epoch != b.epoch) {
      c.r_epoch = b.epoch;
      c.reader = t;
      c.r_stamp = stamp;
      c.many_readers = false;
    } else if (c.reader != t) {
      c.many_readers = true;
      c.other_reader = t;
    }
  }
}

void SharedRegion::write(std::size_t offset, std::size_t n) {
  using namespace detail;
  BlockRun& b = block();
  if (!b.race_check) return;
  const int t = g_fiber->linear;
  const std::uint64_t stamp = b.warps[static_cast<std::size_t>(t / 32)].stamp;
  for (std::size_t i = offset; i < offset + n; ++i) {
    Cell& c = cells_[i];
    if (c.w_epoch == b.epoch && c.writer != t && !warp_ordered(b, t, c.writer, c.w_stamp))
      race("writes", offset, c.writer);
    if (c.r_epoch == b.epoch && (c.many_readers || c.reader != t) &&
        (c.many_readers || !warp_ordered(b, t, c.reader, c.r_stamp)))
      race("writes", offset, c.reader != t ? c.reader : c.other_reader);
    c.w_epoch = b.epoch;
    c.writer = t;
    c.w_stamp = stamp;
  }
}

}  // namespace bnscope::emu
