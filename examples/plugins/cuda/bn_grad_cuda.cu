// A CUDA kernel for TensorFlow's FusedBatchNormGradV3 as a bnscope plugin: float32 data, NHWC and
// NCHW, both modes and both reserve-space conventions. bnscope's helper process hands it device
// pointers and a stream and times run() with CUDA events. One block per channel reduces the two
// sums (in double); a second kernel writes x_backprop.
#include <bnscope/plugin.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>

namespace {

constexpr int kThreads = 256;

struct Shape {
  long long m, channels, inner;  // inner: H*W for NCHW, 1 for NHWC
};

__device__ long long offset(const Shape& s, long long c, long long j) {
  const long long n = j / s.inner, i = j % s.inner;  // element j of channel c
  return (n * s.channels + c) * s.inner + i;
}

__global__ void reduce(Shape s, const float* dy, const float* x, const float* mean,
                       const float* rs2, int rs2_is_inv_std, float eps, float* scale_backprop,
                       float* offset_backprop) {
  __shared__ double a[kThreads], b[kThreads];
  const long long c = blockIdx.x;
  double sum_dy = 0, sum_dy_xc = 0;
  for (long long j = threadIdx.x; j < s.m; j += blockDim.x) {
    const long long o = offset(s, c, j);
    sum_dy += dy[o];
    sum_dy_xc += static_cast<double>(dy[o]) * (x[o] - mean[c]);
  }
  a[threadIdx.x] = sum_dy;
  b[threadIdx.x] = sum_dy_xc;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) {
      a[threadIdx.x] += a[threadIdx.x + w];
      b[threadIdx.x] += b[threadIdx.x + w];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    const double inv = rs2_is_inv_std ? rs2[c] : rsqrt(static_cast<double>(rs2[c]) + eps);
    offset_backprop[c] = static_cast<float>(a[0]);
    scale_backprop[c] = static_cast<float>(b[0] * inv);
  }
}

__global__ void x_backprop(Shape s, const float* dy, const float* x, const float* scale,
                           const float* mean, const float* rs2, int rs2_is_inv_std, float eps,
                           int training, const float* scale_backprop, const float* offset_backprop,
                           float* dx) {
  const long long total = s.m * s.channels;
  for (long long o = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; o < total;
       o += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long c = (o / s.inner) % s.channels;
    const float inv = rs2_is_inv_std ? rs2[c] : rsqrtf(rs2[c] + eps);
    const float k = scale[c] * inv;
    if (!training) {
      dx[o] = k * dy[o];
      continue;
    }
    const float xc = x[o] - mean[c];
    dx[o] = k * (dy[o] - offset_backprop[c] / s.m - xc * inv * scale_backprop[c] / s.m);
  }
}

const bnscope_tensor* input(const bnscope_call* call, const char* name) {
  for (int i = 0; i < call->num_inputs; ++i)
    if (std::strcmp(call->inputs[i]->name, name) == 0) return call->inputs[i];
  return nullptr;
}

bnscope_tensor* output(const bnscope_call* call, const char* name) {
  for (int i = 0; i < call->num_outputs; ++i)
    if (std::strcmp(call->outputs[i]->name, name) == 0) return call->outputs[i];
  return nullptr;
}

int32_t run(const bnscope_kernel*, const bnscope_call* call, char* message, size_t size) {
  const bnscope_tensor *dy = input(call, "y_backprop"), *x = input(call, "x"),
                       *scale = input(call, "scale"), *mean = input(call, "reserve_space_1"),
                       *rs2 = input(call, "reserve_space_2");
  bnscope_tensor *dx = output(call, "x_backprop"), *ds = output(call, "scale_backprop"),
                 *db = output(call, "offset_backprop");
  if (!dy || !x || !scale || !mean || !rs2 || !dx || !ds || !db) {
    std::snprintf(message, size, "%s: an input or output is missing", call->op);
    return BNSCOPE_ERROR;
  }
  // Channels last is the channels-first walk with inner = 1: element j of channel c at j*C + c.
  const bool nhwc = call->layout == BNSCOPE_LAYOUT_NHWC;
  Shape s{0, scale->dims[0], nhwc ? 1 : x->dims[2] * x->dims[3]};
  s.m = bnscope_numel(x) / s.channels;
  const int training = call->mode == BNSCOPE_MODE_TRAINING;
  const int inv_std = training && call->reserve_convention == BNSCOPE_RESERVE_INV_STD;
  const float eps = static_cast<float>(call->epsilon);
  auto stream = static_cast<cudaStream_t>(call->stream);
  auto f = [](const bnscope_tensor* t) { return static_cast<const float*>(t->data); };
  reduce<<<static_cast<unsigned>(s.channels), kThreads, 0, stream>>>(
      s, f(dy), f(x), f(mean), f(rs2), inv_std, eps, static_cast<float*>(ds->data),
      static_cast<float*>(db->data));
  const long long total = s.m * s.channels;
  const unsigned blocks = static_cast<unsigned>(
      (total + kThreads - 1) / kThreads < 4096 ? (total + kThreads - 1) / kThreads : 4096);
  x_backprop<<<blocks, kThreads, 0, stream>>>(s, f(dy), f(x), f(scale), f(mean), f(rs2), inv_std,
                                              eps, training, static_cast<const float*>(ds->data),
                                              static_cast<const float*>(db->data),
                                              static_cast<float*>(dx->data));
  if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess) {
    std::snprintf(message, size, "kernel launch failed: %s", cudaGetErrorString(e));
    return BNSCOPE_ERROR;
  }
  return BNSCOPE_OK;
}

const bnscope_kernel grad_v3 = {
    sizeof(bnscope_kernel),
    "FusedBatchNormGradV3",
    BNSCOPE_BIT(BNSCOPE_DTYPE_FLOAT32),
    BNSCOPE_BIT(BNSCOPE_LAYOUT_NHWC) | BNSCOPE_BIT(BNSCOPE_LAYOUT_NCHW),
    BNSCOPE_BIT(BNSCOPE_MODE_TRAINING) | BNSCOPE_BIT(BNSCOPE_MODE_INFERENCE),
    BNSCOPE_BIT(BNSCOPE_RESERVE_VARIANCE) | BNSCOPE_BIT(BNSCOPE_RESERVE_INV_STD),
    nullptr,
    run,
    nullptr};
const bnscope_kernel* const kernels[] = {&grad_v3};

}  // namespace

extern "C" BNSCOPE_PLUGIN_EXPORT int32_t bnscope_plugin_init(const bnscope_host_api* host,
                                                             bnscope_plugin* plugin) {
  if (bnscope_plugin_begin(host, plugin) != BNSCOPE_OK) return BNSCOPE_ABI_MISMATCH;
  plugin->name = "example-cuda";
  plugin->description = "CUDA FusedBatchNormGradV3, float32, sums in double (bnscope's example)";
  plugin->version = "1.0.0";
  plugin->device = BNSCOPE_DEVICE_CUDA;
  plugin->num_kernels = 1;
  plugin->kernels = kernels;
  return BNSCOPE_OK;
}
