// device.h first: it defines the CUDA keywords before any CUDA header does.
#include "device.h"
// clang-format off
#include "emulator.h"
// clang-format on

#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <mutex>
#include <numeric>
#include <random>
#include <system_error>
#include <thread>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#define BNSCOPE_EMU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BNSCOPE_EMU_ASAN 1
#endif
#endif
#ifdef BNSCOPE_EMU_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

namespace bnscope::emu {

namespace {

std::mutex g_config_mutex;
Config g_config;

#ifdef BNSCOPE_EMU_ASAN
constexpr std::size_t kStackBytes = 512 * 1024;  // instrumented frames are larger
#else
constexpr std::size_t kStackBytes = 64 * 1024;
#endif

// Fiber stacks of one host thread, reused by every block it runs; a guard page below each
// turns an overflow into a crash instead of silent corruption.
class StackPool {
 public:
  ~StackPool() {
    for (void* s : stacks_) munmap(s, kStackBytes + page());
  }
  void* get(std::size_t i) {
    while (stacks_.size() <= i) {
      void* m = mmap(nullptr, kStackBytes + page(), PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (m == MAP_FAILED) throw Fault("emulator: cannot map a fiber stack");
      mprotect(m, page(), PROT_NONE);
      stacks_.push_back(m);
    }
    return static_cast<unsigned char*>(stacks_[i]) + page();
  }

 private:
  static std::size_t page() { return static_cast<std::size_t>(sysconf(_SC_PAGESIZE)); }
  std::vector<void*> stacks_;
};

// The fiber stacks of a cooperative block: every block of such a grid is resident at once, and
// a guard page per fiber would cost two memory mappings per thread (hundreds of thousands for a
// full H100 grid, past the kernel's map limit). One mapping per block instead, with a guard page
// below it; the bottom bytes of each stack stay as the fresh mapping gave them (zero, never
// touched: no memory), checked when the block ends. A host thread runs one resident block.
class SlabStacks {
 public:
  ~SlabStacks() {
    if (base_) munmap(base_, bytes_);
  }
  // Fresh stacks for a block of n threads (zero pages: the canaries hold until written).
  void reset(std::size_t n) {
    if (base_) munmap(base_, bytes_);
    base_ = nullptr;
    bytes_ = n * kStackBytes + page();
    void* m = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) throw Fault("emulator: cannot map the fiber stacks of a resident block");
    mprotect(m, page(), PROT_NONE);
    base_ = static_cast<unsigned char*>(m);
    count_ = n;
  }
  void* get(std::size_t i) const { return base_ + page() + i * kStackBytes; }

  // The first stack whose canary was overwritten, or -1.
  long long overflowed() const {
    for (std::size_t i = 0; i < count_; ++i) {
      const unsigned char* stack = base_ + page() + i * kStackBytes;
      for (std::size_t b = 0; b < kCanaryBytes; ++b)
        if (stack[b] != 0) return static_cast<long long>(i);
    }
    return -1;
  }

 private:
  static constexpr std::size_t kCanaryBytes = 256;
  static std::size_t page() { return static_cast<std::size_t>(sysconf(_SC_PAGESIZE)); }
  unsigned char* base_ = nullptr;
  std::size_t bytes_ = 0, count_ = 0;
};

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

thread_local BlockRun* g_block = nullptr;
thread_local Fiber* g_fiber = nullptr;
thread_local std::uint64_t g_stamp = 0;  // epochs and warp stamps, unique per host thread
thread_local StackPool g_stacks;
thread_local SlabStacks g_slab;            // a resident block's (one block per host thread)
thread_local bool g_stacks_dirty = false;  // a fault abandoned fibers mid-frame

std::uint64_t next_stamp() {
  return ++g_stamp;
}

const char* op_name(WarpOp op) {
  switch (op) {
    case WarpOp::Sync:
      return "__syncwarp";
    case WarpOp::Shfl:
      return "__shfl_sync";
    case WarpOp::ShflUp:
      return "__shfl_up_sync";
    case WarpOp::ShflDown:
      return "__shfl_down_sync";
    case WarpOp::ShflXor:
      return "__shfl_xor_sync";
    case WarpOp::Ballot:
      return "__ballot_sync";
    case WarpOp::Any:
      return "__any_sync";
    case WarpOp::All:
      break;
  }
  return "__all_sync";
}

std::string xyz(const uint3& v) {
  return "(" + std::to_string(v.x) + "," + std::to_string(v.y) + "," + std::to_string(v.z) + ")";
}

std::string hex(unsigned v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%08x", v);
  return b;
}

uint3 thread_coords(const BlockRun& b, int linear) {
  const auto l = static_cast<unsigned>(linear);
  return {l % b.block_dim.x, l / b.block_dim.x % b.block_dim.y,
          l / (b.block_dim.x * b.block_dim.y)};
}

std::string where(const BlockRun& b, int linear) {
  return "kernel " + std::string(b.kernel) + ", block " + xyz(b.block) + ", thread " +
         xyz(thread_coords(b, linear));
}

[[noreturn]] void fault(const std::string& what) {
  throw Fault(what);
}

// The grid-wide barrier of a cooperative launch. Each block (a host thread) arrives once all of
// its live threads have; the last block to arrive releases the others. A block that exits while
// others wait (or waits after one has exited) would hang a device: here it is a fault, and so is
// a fault in any block, which ends the wait of all the others with the same message.
class GridBarrier {
 public:
  explicit GridBarrier(std::uint64_t blocks) : blocks_(blocks) {}

  void arrive(const uint3& block, const char* kernel) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!abort_.empty()) throw Fault(abort_);
    if (exited_ > 0) {
      abort_locked("grid barrier: block " + xyz(block) + " of kernel " + kernel +
                   " waits at the grid barrier, but block " + xyz(first_exited_) +
                   " has exited and never arrives");
      throw Fault(abort_);
    }
    const std::uint64_t generation = generation_;
    if (++arrived_ == blocks_) {
      arrived_ = 0;
      ++generation_;
      cv_.notify_all();
      return;
    }
    cv_.wait(lock, [&] { return generation_ != generation || !abort_.empty(); });
    if (generation_ == generation) throw Fault(abort_);
  }

  void exit(const uint3& block, const char* kernel) {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (exited_++ == 0) first_exited_ = block;
    if (arrived_ > 0)
      abort_locked("grid barrier: block " + xyz(block) + " of kernel " + kernel + " exited while " +
                   std::to_string(arrived_) + " block(s) wait at the grid barrier");
  }

  void abort(const std::string& why) {
    const std::lock_guard<std::mutex> lock(mutex_);
    abort_locked(why);
  }

 private:
  void abort_locked(const std::string& why) {
    if (abort_.empty()) abort_ = why;
    cv_.notify_all();
  }
  std::mutex mutex_;
  std::condition_variable cv_;
  const std::uint64_t blocks_;
  std::uint64_t arrived_ = 0, exited_ = 0, generation_ = 0;
  uint3 first_exited_{};
  std::string abort_;
};

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

std::string lane_list(unsigned lanes) {
  std::string s;
  for (int l = 0; l < 32; ++l)
    if (lanes >> l & 1u) s += (s.empty() ? "" : ",") + std::to_string(l);
  return s;
}

// No fiber can run and the live ones are not all at __syncthreads: a warp operation waits for
// lanes that never arrive.
[[noreturn]] void diagnose_stall(const BlockRun& b) {
  for (std::size_t w = 0; w < b.warps.size(); ++w) {
    const WarpSlot& s = b.warps[w];
    if (!s.arrived) continue;
    const unsigned missing = s.mask & ~s.arrived;
    int first = -1;
    for (int l = 0; l < 32; ++l)
      if (s.arrived >> l & 1u) {
        first = static_cast<int>(w) * 32 + l;
        break;
      }
    std::string why;
    for (int l = 0; l < 32; ++l) {
      if (!(missing >> l & 1u)) continue;
      const Fiber& f = b.fibers[w * 32 + static_cast<std::size_t>(l)];
      why += " lane " + std::to_string(l) +
             (f.state == State::Done ? " has exited;" : " waits at __syncthreads;");
    }
    fault("warp check: " + std::string(op_name(s.op)) + " with mask " + hex(s.mask) + " in " +
          where(b, first) + ": lanes " + lane_list(missing) +
          " named in the mask never arrive:" + why);
  }
  fault("emulator: block " + xyz(b.block) + " of kernel " + b.kernel +
        " stalled with no thread runnable");
}

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

// Runs blocks [next, count) as they are claimed; stops at the first fault anywhere.
struct GridRun {
  const char* kernel;
  dim3 grid, block;
  std::size_t shared;
  const std::function<void()>* body;
  Config config;
  GridBarrier* barrier = nullptr;  // cooperative: each work() call runs exactly one block
  std::atomic<std::uint64_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex error_mutex;
  std::exception_ptr error;

  void work() {
    BlockRun b;
    b.kernel = kernel;
    b.block_dim = block;
    b.grid_dim = grid;
    b.body = body;
    b.race_check = config.race_check;
    b.grid = barrier;
    const std::size_t threads = std::size_t{block.x} * block.y * block.z;
    b.fibers.resize(threads);
    b.warps.resize((threads + 31) / 32);
    // Plain heap memory, so AddressSanitizer sees accesses past the launch's shared bytes.
    std::vector<unsigned char> dynamic(std::max<std::size_t>(shared, 1));
    SharedRegion region("dynamic shared memory");
    region.bind(dynamic.data(), shared);
    b.dynamic = &region;
    const std::uint64_t count = std::uint64_t{grid.x} * grid.y * grid.z;
    g_block = &b;
    try {
      for (std::uint64_t i = next++; i < count && !failed; i = next++) {
        b.block = {static_cast<unsigned>(i % grid.x), static_cast<unsigned>(i / grid.x % grid.y),
                   static_cast<unsigned>(i / (std::uint64_t{grid.x} * grid.y))};
        run_block(b, config);
        if (barrier) {
          barrier->exit(b.block, kernel);
          break;
        }
      }
    } catch (...) {
      failed = true;
      std::string what = "emulator: a block of kernel " + std::string(kernel) + " failed";
      try {
        throw;
      } catch (const std::exception& e) {
        what = e.what();
      } catch (...) {
      }
      {
        const std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
      }
      if (barrier) barrier->abort(what);  // after the error is kept: it is the one reported
    }
    g_block = nullptr;
  }
};

}  // namespace

const char* order_name(Order o) {
  return o == Order::Forward ? "forward" : o == Order::Reverse ? "reverse" : "random";
}

Config config() {
  const std::lock_guard<std::mutex> lock(g_config_mutex);
  return g_config;
}

void set_config(const Config& c) {
  const std::lock_guard<std::mutex> lock(g_config_mutex);
  g_config = c;
}

namespace {

void check_launch(const char* kernel, dim3 grid, dim3 block, std::size_t dynamic_shared_bytes) {
  const std::uint64_t threads = std::uint64_t{block.x} * block.y * block.z;
  if (threads == 0 || threads > 1024)
    fault("launch of " + std::string(kernel) + ": " + std::to_string(threads) +
          " threads per block (a device allows 1 to 1024)");
  if (block.z > 64) fault("launch of " + std::string(kernel) + ": blockDim.z above 64");
  if (grid.x == 0 || grid.y == 0 || grid.z == 0 || grid.y > 65535 || grid.z > 65535)
    fault("launch of " + std::string(kernel) + ": grid " + xyz({grid.x, grid.y, grid.z}) +
          " outside the device limits");
  if (dynamic_shared_bytes > 227 * 1024)
    fault("launch of " + std::string(kernel) + ": " + std::to_string(dynamic_shared_bytes) +
          " bytes of dynamic shared memory (a device has at most 227 KiB)");
  if (g_block) fault("launch of " + std::string(kernel) + " from device code (not emulated)");
}

}  // namespace

void run_grid(const char* kernel, dim3 grid, dim3 block, std::size_t dynamic_shared_bytes,
              const std::function<void()>& body) {
  check_launch(kernel, grid, block, dynamic_shared_bytes);
  GridRun run;
  run.kernel = kernel;
  run.grid = grid;
  run.block = block;
  run.shared = dynamic_shared_bytes;
  run.body = &body;
  run.config = config();
  const std::uint64_t blocks = std::uint64_t{grid.x} * grid.y * grid.z;
  const auto extra = static_cast<std::size_t>(
      std::min<std::uint64_t>(std::max(run.config.host_threads, 1), blocks) - 1);
  std::vector<std::thread> helpers;
  helpers.reserve(extra);
  for (std::size_t i = 0; i < extra; ++i) helpers.emplace_back([&run] { run.work(); });
  run.work();
  for (std::thread& t : helpers) t.join();
  if (run.error) std::rethrow_exception(run.error);
}

void run_cooperative_grid(const char* kernel, dim3 grid, dim3 block,
                          std::size_t dynamic_shared_bytes, const gpu::KernelFootprint& footprint,
                          const std::function<void()>& body) {
  check_launch(kernel, grid, block, dynamic_shared_bytes);
  const Config c = config();
  const std::string launch = "cooperative launch of " + std::string(kernel);
  if (!c.target.cooperative_launch)
    fault(launch + ": the target does not support cooperative launches");
  gpu::KernelFootprint k = footprint;
  k.threads = static_cast<int>(block.x * block.y * block.z);
  k.dynamic_shared_bytes = static_cast<int>(dynamic_shared_bytes);
  const gpu::Occupancy o = gpu::occupancy(c.target, k);
  const std::uint64_t blocks = std::uint64_t{grid.x} * grid.y * grid.z;
  if (blocks > static_cast<std::uint64_t>(o.co_resident(c.target)))
    fault(launch + ": a grid of " + std::to_string(blocks) + " blocks cannot be co-resident: " +
          (o.blocks_per_sm == 0
               ? "no block fits on an SM (" + o.limiter + ")"
               : std::to_string(o.blocks_per_sm) + " block(s) per SM (limited by " + o.limiter +
                     ") on " + std::to_string(c.target.sm_count) + " SMs hold at most " +
                     std::to_string(o.co_resident(c.target))) +
          " (cudaErrorCooperativeLaunchTooLarge on a device)");
  constexpr std::uint64_t kMaxResident = 1024;  // one host thread per block
  if (blocks > kMaxResident)
    fault(launch + ": the emulator keeps at most " + std::to_string(kMaxResident) +
          " blocks resident, the grid has " + std::to_string(blocks));
  GridBarrier barrier(blocks);
  GridRun run;
  run.kernel = kernel;
  run.grid = grid;
  run.block = block;
  run.shared = dynamic_shared_bytes;
  run.body = &body;
  run.config = c;
  run.barrier = &barrier;
  std::vector<std::thread> residents;
  residents.reserve(static_cast<std::size_t>(blocks - 1));
  try {
    for (std::uint64_t i = 1; i < blocks; ++i) residents.emplace_back([&run] { run.work(); });
  } catch (const std::system_error& e) {
    const std::string why = launch + ": cannot start a host thread for each of the " +
                            std::to_string(blocks) + " resident blocks (" + e.what() + ")";
    barrier.abort(why);
    for (std::thread& t : residents) t.join();
    fault(why);
  }
  run.work();
  for (std::thread& t : residents) t.join();
  if (run.error) std::rethrow_exception(run.error);
}

namespace {

// A barrier while lanes of the same warp wait in a warp operation that includes this thread
// deadlocks a device: say so instead.
void check_no_lane_waits(const BlockRun& b, const Fiber& f, const char* barrier) {
  const unsigned warp = static_cast<unsigned>(f.linear) / 32;
  if (b.warps[warp].arrived && b.warps[warp].mask >> (f.linear % 32) & 1u)
    fault(std::string("warp check: ") + barrier + " in " + where(b, f.linear) + " while lanes " +
          lane_list(b.warps[warp].arrived) + " of its warp wait at " + op_name(b.warps[warp].op));
}

}  // namespace

void grid_sync() {
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
  block();
  return g_fiber->idx;
}
const uint3& block_idx() {
  return block().block;
}
const dim3& block_dim() {
  return block().block_dim;
}
const dim3& grid_dim() {
  return block().grid_dim;
}

void sync_threads() {
  BlockRun& b = block();
  Fiber& f = *g_fiber;
  check_no_lane_waits(b, f, "__syncthreads");
  f.state = State::Barrier;
  ++b.at_barrier;
  switch_to_scheduler(b, f, false);
}

std::uint64_t warp_op(WarpOp op, unsigned mask, std::uint64_t value, int arg, int width) {
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
  return *block().dynamic;
}

void SharedRegion::bind(unsigned char* base, std::size_t bytes) {
  base_ = base;
  bytes_ = bytes;
  cells_.assign(bytes, Cell{});
}

void SharedRegion::check(long long index, std::ptrdiff_t offset, std::size_t n) const {
  if (offset >= 0 && static_cast<std::size_t>(offset) + n <= bytes_) return;
  const BlockRun& b = block();
  fault("shared-memory bounds check: " + where(b, g_fiber->linear) + ": index " +
        std::to_string(index) + " reaches byte " + std::to_string(offset) + " of " + what_ + " (" +
        std::to_string(bytes_) + " bytes)");
}

void SharedRegion::race(const char* what, std::size_t offset, int other) const {
  const BlockRun& b = block();
  char addr[32];
  std::snprintf(addr, sizeof addr, "+0x%zx", offset);
  fault("shared-memory race: " + where(b, g_fiber->linear) + " " + what + " " + what_ + " " + addr +
        ", which thread " + xyz(thread_coords(b, other)) +
        (std::string(what) == "reads" ? " wrote" : " accessed") + " since the last __syncthreads");
}

namespace {
// Whether an access of thread t is ordered after one of thread other stamped with warp stamp
// `then`: a __syncwarp of their common warp since then orders them.
bool warp_ordered(const BlockRun& b, int t, int other, std::uint64_t then) {
  return t / 32 == other / 32 && b.warps[static_cast<std::size_t>(t / 32)].stamp != then;
}
}  // namespace

void SharedRegion::read(std::size_t offset, std::size_t n) {
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
