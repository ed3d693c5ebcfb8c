#include "device_memory.h"

#include <cuda_runtime_api.h>

#include "cuda_check.h"

namespace bnscope::gpu {

DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
  if (bytes == 0) return;
  if (cudaError_t e = cudaMalloc(&ptr_, bytes); e != cudaSuccess) {
    ptr_ = nullptr;
    cudaGetLastError();
    throw Error(cuda_error_code(e), "cudaMalloc of " + std::to_string(bytes) +
                                        " bytes failed: " + cudaGetErrorString(e));
  }
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_) cudaFree(ptr_);
}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  if (this != &o) {
    if (ptr_) cudaFree(ptr_);
    ptr_ = o.ptr_;
    bytes_ = o.bytes_;
    o.ptr_ = nullptr;
    o.bytes_ = 0;
  }
  return *this;
}

CudaStream::CudaStream() {
  check_cuda(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking), "cudaStreamCreate");
}

CudaStream::~CudaStream() {
  if (s_) cudaStreamDestroy(s_);
}

void CudaStream::synchronize() const {
  check_cuda(cudaStreamSynchronize(s_), "cudaStreamSynchronize");
}

DeviceBuffer upload(const Tensor& t, Stream s) {
  DeviceBuffer b(t.nbytes());
  if (t.nbytes())
    check_cuda(cudaMemcpyAsync(b.get(), t.raw(), t.nbytes(), cudaMemcpyHostToDevice, s),
               "cudaMemcpy host to device");
  return b;
}

void download(const DeviceBuffer& b, Tensor& t, Stream s) {
  if (t.nbytes() > b.bytes())
    throw Error(ErrorCode::Internal, "device buffer smaller than the tensor downloaded into");
  if (t.nbytes())
    check_cuda(cudaMemcpyAsync(t.raw(), b.get(), t.nbytes(), cudaMemcpyDeviceToHost, s),
               "cudaMemcpy device to host");
}

void zero(DeviceBuffer& b, Stream s) {
  if (b.bytes()) check_cuda(cudaMemsetAsync(b.get(), 0, b.bytes(), s), "cudaMemset");
}

DeviceBuffer upload_channels(const std::vector<double>& v, bool as_double, Stream s) {
  if (as_double) {
    DeviceBuffer b(v.size() * sizeof(double));
    if (!v.empty())
      check_cuda(cudaMemcpyAsync(b.get(), v.data(), b.bytes(), cudaMemcpyHostToDevice, s),
                 "cudaMemcpy host to device");
    check_cuda(cudaStreamSynchronize(s), "cudaStreamSynchronize");  // v may go away
    return b;
  }
  const std::vector<float> f(v.begin(), v.end());
  DeviceBuffer b(f.size() * sizeof(float));
  if (!f.empty())
    check_cuda(cudaMemcpyAsync(b.get(), f.data(), b.bytes(), cudaMemcpyHostToDevice, s),
               "cudaMemcpy host to device");
  check_cuda(cudaStreamSynchronize(s), "cudaStreamSynchronize");  // f goes away
  return b;
}

std::vector<double> download_channels(const DeviceBuffer& b, std::size_t n, bool as_double,
                                      Stream s) {
  const std::size_t elem = as_double ? sizeof(double) : sizeof(float);
  if (n * elem > b.bytes())
    throw Error(ErrorCode::Internal, "device buffer smaller than the channels downloaded");
  if (as_double) {
    std::vector<double> v(n);
    if (n)
      check_cuda(cudaMemcpyAsync(v.data(), b.get(), n * elem, cudaMemcpyDeviceToHost, s),
                 "cudaMemcpy device to host");
    check_cuda(cudaStreamSynchronize(s), "cudaStreamSynchronize");
    return v;
  }
  std::vector<float> f(n);
  if (n)
    check_cuda(cudaMemcpyAsync(f.data(), b.get(), n * elem, cudaMemcpyDeviceToHost, s),
               "cudaMemcpy device to host");
  check_cuda(cudaStreamSynchronize(s), "cudaStreamSynchronize");
  return {f.begin(), f.end()};
}

}  // namespace bnscope::gpu
