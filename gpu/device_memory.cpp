#include "device_memory.h"

#include "tensor/error.h"

namespace bnscope::gpu {

DeviceBuffer::DeviceBuffer(DeviceRuntime& rt, std::size_t bytes)
    : rt_(&rt), ptr_(rt.allocate(bytes)), bytes_(bytes) {}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_) rt_->release(ptr_);
}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  if (this != &o) {
    if (ptr_) rt_->release(ptr_);
    rt_ = o.rt_;
    ptr_ = o.ptr_;
    bytes_ = o.bytes_;
    o.ptr_ = nullptr;
    o.bytes_ = 0;
  }
  return *this;
}

DeviceBuffer upload(DeviceRuntime& rt, const Tensor& t, Stream s) {
  DeviceBuffer b(rt, t.nbytes());
  if (t.nbytes()) rt.copy_to_device(b.get(), t.raw(), t.nbytes(), s);
  return b;
}

void download(const DeviceBuffer& b, Tensor& t, Stream s) {
  if (t.nbytes() > b.bytes())
    throw Error(ErrorCode::Internal, "device buffer smaller than the tensor downloaded into");
  if (t.nbytes()) b.runtime()->copy_to_host(t.raw(), b.get(), t.nbytes(), s);
}

void zero(DeviceBuffer& b, Stream s) {
  if (b.bytes()) b.runtime()->fill_zero(b.get(), b.bytes(), s);
}

DeviceBuffer upload_channels(DeviceRuntime& rt, const std::vector<double>& v, bool as_double,
                             Stream s) {
  if (as_double) {
    DeviceBuffer b(rt, v.size() * sizeof(double));
    if (!v.empty()) rt.copy_to_device(b.get(), v.data(), b.bytes(), s);
    rt.synchronize(s);  // v may go away
    return b;
  }
  const std::vector<float> f(v.begin(), v.end());
  DeviceBuffer b(rt, f.size() * sizeof(float));
  if (!f.empty()) rt.copy_to_device(b.get(), f.data(), b.bytes(), s);
  rt.synchronize(s);  // f goes away
  return b;
}

std::vector<double> download_channels(const DeviceBuffer& b, std::size_t n, bool as_double,
                                      Stream s) {
  const std::size_t elem = as_double ? sizeof(double) : sizeof(float);
  if (n * elem > b.bytes())
    throw Error(ErrorCode::Internal, "device buffer smaller than the channels downloaded");
  DeviceRuntime& rt = *b.runtime();
  if (as_double) {
    std::vector<double> v(n);
    if (n) rt.copy_to_host(v.data(), b.get(), n * elem, s);
    rt.synchronize(s);
    return v;
  }
  std::vector<float> f(n);
  if (n) rt.copy_to_host(f.data(), b.get(), n * elem, s);
  rt.synchronize(s);
  return {f.begin(), f.end()};
}

}  // namespace bnscope::gpu
