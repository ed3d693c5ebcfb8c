// The blocks of a grid over host threads: an ordinary launch claims blocks as host threads come
// free; a cooperative one keeps every block resident, one host thread each, behind a grid barrier.

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "emulator_state.h"
#include "fault_report.h"
#include "grid_barrier.h"

namespace bnscope::emu {

namespace detail {
namespace {

// Runs blocks [next, count) as they are claimed; stops at the first fault anywhere.
struct GridRun {
  GridRun(const char* k, dim3 g, dim3 b, std::size_t s, const std::function<void()>& f,
          const Config& c, GridBarrier* gb = nullptr)
      : kernel(k), grid(g), block(b), shared(s), body(&f), config(c), barrier(gb) {}

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
}  // namespace detail

void run_grid(const char* kernel, dim3 grid, dim3 block, std::size_t dynamic_shared_bytes,
              const std::function<void()>& body) {
  detail::check_launch(kernel, grid, block, dynamic_shared_bytes);
  detail::GridRun run(kernel, grid, block, dynamic_shared_bytes, body, config());
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
  using detail::fault;
  detail::check_launch(kernel, grid, block, dynamic_shared_bytes);
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
  detail::GridBarrier barrier(blocks);
  detail::GridRun run(kernel, grid, block, dynamic_shared_bytes, body, c, &barrier);
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

}  // namespace bnscope::emu
