#include "cuda_runtime_impl.h"

#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>

#include "cuda_check.h"
#include "device_query.h"

namespace bnscope::gpu {

namespace {

class CudaRuntime : public DeviceRuntime {
 public:
  void* allocate(std::size_t bytes) override {
    if (bytes == 0) return nullptr;
    void* p = nullptr;
    if (cudaError_t e = cudaMalloc(&p, bytes); e != cudaSuccess) {
      cudaGetLastError();
      throw Error(cuda_error_code(e), "cudaMalloc of " + std::to_string(bytes) +
                                          " bytes failed: " + cudaGetErrorString(e));
    }
    return p;
  }
  void release(void* p) noexcept override { cudaFree(p); }
  void copy_to_device(void* dst, const void* src, std::size_t bytes, Stream s) override {
    check_cuda(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, s),
               "cudaMemcpy host to device");
  }
  void copy_to_host(void* dst, const void* src, std::size_t bytes, Stream s) override {
    check_cuda(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, s),
               "cudaMemcpy device to host");
  }
  void copy_on_device(void* dst, const void* src, std::size_t bytes, Stream s) override {
    check_cuda(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s),
               "cudaMemcpy device to device");
  }
  void fill_zero(void* dst, std::size_t bytes, Stream s) override {
    check_cuda(cudaMemsetAsync(dst, 0, bytes, s), "cudaMemset");
  }
  Stream create_stream() override {
    Stream s = nullptr;
    check_cuda(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
    return s;
  }
  void destroy_stream(Stream s) noexcept override {
    if (s) cudaStreamDestroy(s);
  }
  void synchronize(Stream s) override {
    check_cuda(cudaStreamSynchronize(s), "cudaStreamSynchronize");
  }
  bool has_device_clock() const override { return true; }
  Event create_event() override {
    cudaEvent_t e = nullptr;
    check_cuda(cudaEventCreate(&e), "cudaEventCreate");
    return e;
  }
  void destroy_event(Event e) noexcept override {
    if (e) cudaEventDestroy(static_cast<cudaEvent_t>(e));
  }
  void record(Event e, Stream s) override {
    check_cuda(cudaEventRecord(static_cast<cudaEvent_t>(e), s), "cudaEventRecord");
  }
  double elapsed_seconds(Event start, Event stop) override {
    float ms = 0;
    check_cuda(
        cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(start), static_cast<cudaEvent_t>(stop)),
        "cudaEventElapsedTime");
    return ms / 1000.0;
  }
  void range_push(const std::string& name) override { nvtxRangePushA(name.c_str()); }
  void range_pop() noexcept override { nvtxRangePop(); }
  DeviceLimits limits() const override { return device_status().info.limits(); }
  const KernelLaunchers& kernels() const override { return cuda_device::launchers(); }
};

}  // namespace

DeviceRuntime& cuda_runtime() {
  static CudaRuntime rt;
  return rt;
}

}  // namespace bnscope::gpu
