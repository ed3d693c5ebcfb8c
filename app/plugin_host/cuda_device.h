#pragma once
// The CUDA runtime for a CUDA plugin's calls, loaded by name when such a plugin is (the helper
// is built without CUDA): device buffers for its tensors, a stream, and events timing its run().

#include <cstddef>
#include <functional>
#include <string>

namespace bnscope::plugin_host {

class CudaDevice {
 public:
  CudaDevice();  // never throws; problem() says why it cannot be used
  ~CudaDevice();
  CudaDevice(const CudaDevice&) = delete;
  CudaDevice& operator=(const CudaDevice&) = delete;

  // "" when there is a runtime and a device; otherwise why not, in one line.
  const std::string& problem() const { return problem_; }
  void* stream() const { return stream_; }

  // Throw Error naming the CUDA error.
  void* alloc(std::size_t bytes);
  void release(void* p);
  void upload(void* device, const void* host, std::size_t bytes);
  void download(void* host, const void* device, std::size_t bytes);
  // Runs f between two events on the stream, waits for the stream, and returns the seconds
  // between the events; a CUDA error afterwards (the kernel's) is thrown naming `what`.
  double timed(const std::function<void()>& f, const std::string& what);

 private:
  void check(int status, const char* call) const;

  void* lib_ = nullptr;
  void* stream_ = nullptr;
  std::string problem_;
};

}  // namespace bnscope::plugin_host
