#pragma once
// A CUDA execution-model emulator: runs __global__ functions compiled as host C++ (see device.h).
// The blocks of a grid run one at a time per host thread (optionally spread over several host
// threads); the threads of a block run as cooperative fibers on one host thread, switching only
// at __syncthreads, __syncwarp, warp shuffles and votes, so block-level and warp-level
// synchronization behaves as on a device. A cooperative launch keeps every block resident (one
// host thread each) so that a grid-wide barrier can hold them all. Between two barriers the threads
// run in a seeded order; a shared-memory race check and a warp check turn what a device would make
// undefined into a Fault that names the kernel, block, thread and address.

#include <vector_types.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>

#include "occupancy.h"

namespace bnscope::emu {

// The order in which the runnable threads of a block are resumed between two barriers.
enum class Order { Forward, Reverse, Random };
const char* order_name(Order o);

struct Config {
  Order order = Order::Forward;
  std::uint64_t seed = 1;  // for Order::Random
  int host_threads = 1;    // blocks of a grid spread over this many host threads
  bool race_check = true;  // shared-memory race check
  // The device a cooperative launch must fit on (SM count and per-SM limits), and the one the
  // cuda-emu backend plans for.
  gpu::DeviceLimits target;
};

// Process-wide; set before launching (tests switch it between runs).
Config config();
void set_config(const Config& c);

// What the emulator found: a race, a warp misuse, an out-of-bounds shared index, a deadlock, or
// a device feature it does not emulate. Thrown out of launch().
class Fault : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Runs body once per thread of every block of the grid; returns when the grid has finished.
void run_grid(const char* kernel, dim3 grid, dim3 block, std::size_t dynamic_shared_bytes,
              const std::function<void()>& body);

// A cooperative launch (cudaLaunchCooperativeKernel): every block of the grid is resident at
// once, each on its own host thread with its threads as fibers, so a grid-wide barrier
// (grid_sync) can hold them all. A grid larger than what the target keeps co-resident for this
// footprint (occupancy.h) is refused before anything runs, as the device refuses it.
void run_cooperative_grid(const char* kernel, dim3 grid, dim3 block,
                          std::size_t dynamic_shared_bytes, const gpu::KernelFootprint& footprint,
                          const std::function<void()>& body);

// The grid-wide barrier of device code (cooperative_groups::this_grid().sync() on a device):
// returns when every live thread of every block of the grid has arrived. A fault in a launch
// that is not cooperative, or when a block has exited while others wait.
void grid_sync();

// kernel<<<grid, block, shared>>>(args...): the arguments are converted to the kernel's
// parameter types once, as a launch does, and every thread gets its own copy.
template <class... P, class... A>
void launch(const char* name, void (*kernel)(P...), dim3 grid, dim3 block, std::size_t shared,
            A&&... args) {
  static_assert(sizeof...(P) == sizeof...(A), "kernel launched with the wrong argument count");
  const std::tuple<std::decay_t<P>...> params(static_cast<std::decay_t<P>>(args)...);
  run_grid(name, grid, block, shared, [&] { std::apply(kernel, params); });
}

template <class... P, class... A>
void launch_cooperative(const char* name, void (*kernel)(P...), dim3 grid, dim3 block,
                        std::size_t shared, const gpu::KernelFootprint& footprint, A&&... args) {
  static_assert(sizeof...(P) == sizeof...(A), "kernel launched with the wrong argument count");
  const std::tuple<std::decay_t<P>...> params(static_cast<std::decay_t<P>>(args)...);
  run_cooperative_grid(name, grid, block, shared, footprint, [&] { std::apply(kernel, params); });
}

}  // namespace bnscope::emu
