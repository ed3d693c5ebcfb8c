#pragma once
// The narrow device-runtime interface the host orchestration (kernel_runner, device_memory,
// channel_io, phase_timer) is written against: device memory, copies, streams, phase timing, the
// launch limits the planner plans for, and the kernel launchers. Two implementations: the CUDA
// runtime (cuda_runtime_impl.cpp, backend "cuda") and the host one of the emulator
// (emulator/host_runtime.cpp, backend "cuda-emu"). Plain C++.

#include <cstddef>
#include <string>

#include "launch.h"
#include "planner.h"

namespace bnscope::gpu {

using Event = void*;

class DeviceRuntime {
 public:
  virtual ~DeviceRuntime() = default;

  // Throws Error (ResourceExhausted, Internal); zero bytes gives a null pointer.
  virtual void* allocate(std::size_t bytes) = 0;
  virtual void release(void* p) noexcept = 0;
  virtual void copy_to_device(void* dst, const void* src, std::size_t bytes, Stream s) = 0;
  virtual void copy_to_host(void* dst, const void* src, std::size_t bytes, Stream s) = 0;
  virtual void fill_zero(void* dst, std::size_t bytes, Stream s) = 0;
  virtual void copy_on_device(void* dst, const void* src, std::size_t bytes, Stream s) = 0;

  virtual Stream create_stream() = 0;
  virtual void destroy_stream(Stream s) noexcept = 0;
  virtual void synchronize(Stream s) = 0;

  // Phase timing on the device's clock. A runtime without one (the emulator) says so here, and
  // its runs report no phase timings at all rather than host time dressed as device time.
  virtual bool has_device_clock() const = 0;
  virtual Event create_event() = 0;
  virtual void destroy_event(Event e) noexcept = 0;
  virtual void record(Event e, Stream s) = 0;
  virtual double elapsed_seconds(Event start, Event stop) = 0;
  // Named ranges for external profilers (NVTX); may do nothing.
  virtual void range_push(const std::string& name) = 0;
  virtual void range_pop() noexcept = 0;

  virtual DeviceLimits limits() const = 0;
  virtual const KernelLaunchers& kernels() const = 0;
};

}  // namespace bnscope::gpu
