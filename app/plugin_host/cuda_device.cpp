#include "cuda_device.h"

#include <dlfcn.h>

#include "tensor/error.h"

namespace bnscope::plugin_host {

namespace {

// The few runtime calls the helper makes, as the runtime's C API declares them (cudaError_t is
// an int, streams and events are pointers).
struct Api {
  int (*getDeviceCount)(int*);
  int (*malloc)(void**, std::size_t);
  int (*free)(void*);
  int (*memcpy)(void*, const void*, std::size_t, int);
  int (*streamCreate)(void**);
  int (*streamDestroy)(void*);
  int (*streamSynchronize)(void*);
  int (*eventCreate)(void**);
  int (*eventDestroy)(void*);
  int (*eventRecord)(void*, void*);
  int (*eventSynchronize)(void*);
  int (*eventElapsedTime)(float*, void*, void*);
  int (*getLastError)();
  const char* (*getErrorString)(int);
};
Api api{};
constexpr int kHostToDevice = 1, kDeviceToHost = 2;

template <class F>
bool bind(void* lib, const char* name, F& f) {
  f = reinterpret_cast<F>(dlsym(lib, name));
  return f != nullptr;
}

}  // namespace

CudaDevice::CudaDevice() {
  for (const char* name : {"libcudart.so", "libcudart.so.13", "libcudart.so.12"})
    if ((lib_ = dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
  if (!lib_) {
    problem_ = "no CUDA runtime (libcudart.so) was found to run this CUDA plugin";
    return;
  }
  const bool ok = bind(lib_, "cudaGetDeviceCount", api.getDeviceCount) &&
                  bind(lib_, "cudaMalloc", api.malloc) && bind(lib_, "cudaFree", api.free) &&
                  bind(lib_, "cudaMemcpy", api.memcpy) &&
                  bind(lib_, "cudaStreamCreate", api.streamCreate) &&
                  bind(lib_, "cudaStreamDestroy", api.streamDestroy) &&
                  bind(lib_, "cudaStreamSynchronize", api.streamSynchronize) &&
                  bind(lib_, "cudaEventCreate", api.eventCreate) &&
                  bind(lib_, "cudaEventDestroy", api.eventDestroy) &&
                  bind(lib_, "cudaEventRecord", api.eventRecord) &&
                  bind(lib_, "cudaEventSynchronize", api.eventSynchronize) &&
                  bind(lib_, "cudaEventElapsedTime", api.eventElapsedTime) &&
                  bind(lib_, "cudaGetLastError", api.getLastError) &&
                  bind(lib_, "cudaGetErrorString", api.getErrorString);
  if (!ok) {
    problem_ = "the CUDA runtime found lacks the calls bnscope needs";
    return;
  }
  int count = 0;
  const int s = api.getDeviceCount(&count);
  if (s != 0 || count == 0) {
    problem_ = std::string("no CUDA device: ") + (s ? api.getErrorString(s) : "none found");
    return;
  }
  if (api.streamCreate(&stream_) != 0) problem_ = "cannot create a CUDA stream";
}

CudaDevice::~CudaDevice() {
  if (stream_) api.streamDestroy(stream_);
}

void CudaDevice::check(int status, const char* call) const {
  if (status != 0)
    throw Error(ErrorCode::Internal, std::string(call) + " failed: " + api.getErrorString(status));
}

void* CudaDevice::alloc(std::size_t bytes) {
  void* p = nullptr;
  check(api.malloc(&p, bytes ? bytes : 1), "cudaMalloc");
  return p;
}

void CudaDevice::release(void* p) {
  if (p) api.free(p);
}

void CudaDevice::upload(void* device, const void* host, std::size_t bytes) {
  if (bytes) check(api.memcpy(device, host, bytes, kHostToDevice), "cudaMemcpy to the device");
}

void CudaDevice::download(void* host, const void* device, std::size_t bytes) {
  if (bytes) check(api.memcpy(host, device, bytes, kDeviceToHost), "cudaMemcpy from the device");
}

double CudaDevice::timed(const std::function<void()>& f, const std::string& what) {
  void *start = nullptr, *stop = nullptr;
  check(api.eventCreate(&start), "cudaEventCreate");
  check(api.eventCreate(&stop), "cudaEventCreate");
  check(api.eventRecord(start, stream_), "cudaEventRecord");
  f();
  check(api.eventRecord(stop, stream_), "cudaEventRecord");
  const int synced = api.streamSynchronize(stream_);
  const int last = api.getLastError();
  if (synced != 0 || last != 0)
    throw Error(ErrorCode::Internal,
                what + ": CUDA error " + api.getErrorString(synced != 0 ? synced : last));
  check(api.eventSynchronize(stop), "cudaEventSynchronize");
  float ms = 0;
  check(api.eventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
  api.eventDestroy(start);
  api.eventDestroy(stop);
  return ms / 1000.0;
}

}  // namespace bnscope::plugin_host
