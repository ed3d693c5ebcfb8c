#include "host_runtime.h"

#include <cstdlib>
#include <cstring>
#include <new>

#include "emulator.h"
#include "tensor/error.h"

namespace bnscope::gpu {

namespace {

// Streams are only handles here: every launch and copy completes before it returns.
char g_stream_tag;

class HostRuntime : public DeviceRuntime {
 public:
  void* allocate(std::size_t bytes) override {
    if (bytes == 0) return nullptr;
    void* p = std::malloc(bytes);
    if (!p)
      throw Error(ErrorCode::ResourceExhausted,
                  "emulated device allocation of " + std::to_string(bytes) + " bytes failed");
    return p;
  }
  void release(void* p) noexcept override { std::free(p); }
  void copy_to_device(void* dst, const void* src, std::size_t bytes, Stream) override {
    std::memcpy(dst, src, bytes);
  }
  void copy_to_host(void* dst, const void* src, std::size_t bytes, Stream) override {
    std::memcpy(dst, src, bytes);
  }
  void copy_on_device(void* dst, const void* src, std::size_t bytes, Stream) override {
    std::memcpy(dst, src, bytes);
  }
  void fill_zero(void* dst, std::size_t bytes, Stream) override { std::memset(dst, 0, bytes); }
  Stream create_stream() override { return reinterpret_cast<Stream>(&g_stream_tag); }
  void destroy_stream(Stream) noexcept override {}
  void synchronize(Stream) override {}
  bool has_device_clock() const override { return false; }
  Event create_event() override { throw no_clock(); }
  void destroy_event(Event) noexcept override {}
  void record(Event, Stream) override { throw no_clock(); }
  double elapsed_seconds(Event, Event) override { throw no_clock(); }
  void range_push(const std::string&) override {}
  void range_pop() noexcept override {}
  // The emulated target (emu::Config): what cooperative launches must fit on.
  DeviceLimits limits() const override { return emu::config().target; }
  const KernelLaunchers& kernels() const override { return emulated::launchers(); }

 private:
  static Error no_clock() {
    return Error(ErrorCode::Internal, "the emulator has no device clock to time phases with");
  }
};

}  // namespace

DeviceRuntime& host_runtime() {
  static HostRuntime rt;
  return rt;
}

}  // namespace bnscope::gpu
