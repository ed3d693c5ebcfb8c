#pragma once
// RAII for device memory, streams and events, and the host<->device copies the backends make.
// Every call is checked (cuda_check.h); destructors never throw.

#include <cstddef>
#include <vector>

#include "launch.h"
#include "tensor/tensor.h"

namespace bnscope::gpu {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes);  // zero bytes: a null pointer
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(o.ptr_), bytes_(o.bytes_) {
    o.ptr_ = nullptr;
    o.bytes_ = 0;
  }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* get() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

class CudaStream {
 public:
  CudaStream();
  ~CudaStream();
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;
  Stream get() const { return s_; }
  void synchronize() const;

 private:
  Stream s_ = nullptr;
};

// Tensor bytes to a new device buffer, and back into an allocated tensor of the same size.
DeviceBuffer upload(const Tensor& t, Stream s);
void download(const DeviceBuffer& b, Tensor& t, Stream s);
void zero(DeviceBuffer& b, Stream s);

// Per-channel values as the accumulation type (float, or double when as_double).
DeviceBuffer upload_channels(const std::vector<double>& v, bool as_double, Stream s);
// Synchronizes the stream.
std::vector<double> download_channels(const DeviceBuffer& b, std::size_t n, bool as_double,
                                      Stream s);

}  // namespace bnscope::gpu
