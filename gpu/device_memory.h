#pragma once
// RAII for device memory and streams, and the host<->device copies the backends make, over a
// DeviceRuntime. Every call is checked by the runtime; destructors never throw.

#include <cstddef>
#include <vector>

#include "device_runtime.h"
#include "tensor/tensor.h"

namespace bnscope::gpu {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(DeviceRuntime& rt, std::size_t bytes);  // zero bytes: a null pointer
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& o) noexcept : rt_(o.rt_), ptr_(o.ptr_), bytes_(o.bytes_) {
    o.ptr_ = nullptr;
    o.bytes_ = 0;
  }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* get() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }
  DeviceRuntime* runtime() const { return rt_; }

 private:
  DeviceRuntime* rt_ = nullptr;
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

class DeviceStream {
 public:
  explicit DeviceStream(DeviceRuntime& rt) : rt_(rt), s_(rt.create_stream()) {}
  ~DeviceStream() { rt_.destroy_stream(s_); }
  DeviceStream(const DeviceStream&) = delete;
  DeviceStream& operator=(const DeviceStream&) = delete;
  Stream get() const { return s_; }
  void synchronize() const { rt_.synchronize(s_); }

 private:
  DeviceRuntime& rt_;
  Stream s_;
};

// Tensor bytes to a new device buffer, and back into an allocated tensor of the same size.
DeviceBuffer upload(DeviceRuntime& rt, const Tensor& t, Stream s);
void download(const DeviceBuffer& b, Tensor& t, Stream s);
void zero(DeviceBuffer& b, Stream s);

// Per-channel values as the accumulation type (float, or double when as_double).
DeviceBuffer upload_channels(DeviceRuntime& rt, const std::vector<double>& v, bool as_double,
                             Stream s);
// Synchronizes the stream.
std::vector<double> download_channels(const DeviceBuffer& b, std::size_t n, bool as_double,
                                      Stream s);

}  // namespace bnscope::gpu
