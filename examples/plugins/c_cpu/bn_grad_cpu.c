/* A plain C kernel for TensorFlow's FusedBatchNormGradV2/V3 as a bnscope plugin: every layout
 * (NHWC, NCHW, NDHWC, NCDHW), both modes, both reserve-space conventions, float16, bfloat16 and
 * float32 data with float statistics. Sums are taken in double, so it agrees with cpu-reference
 * well inside every dtype's tolerance.
 *
 * Two planted bugs, for showing what bnscope's diff says about them (off unless defined):
 *   EXAMPLE_BUG_RESERVE  reserve_space_2 read as 1/sqrt(variance + epsilon) when it holds the
 *                        variance (and the other way round): the convention flag tested backwards
 *   EXAMPLE_BUG_LAYOUT   NCHW buffers indexed as NHWC
 */
#include <bnscope/plugin.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef EXAMPLE_NAME
#define EXAMPLE_NAME "example-c"
#endif

static float half_to_float(uint16_t h) {
  const uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu, man = h & 0x3ffu, bits;
  float f;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (man << 13); /* Inf, NaN */
  } else if (exp == 0) {
    f = ldexpf((float)man, -24); /* zero and subnormals */
    return sign ? -f : f;
  } else {
    bits = sign | ((exp + 112u) << 23) | (man << 13);
  }
  memcpy(&f, &bits, sizeof f);
  return f;
}

static uint16_t float_to_half(float f) { /* round to nearest even */
  uint32_t u, sign, mant;
  int exp;
  memcpy(&u, &f, sizeof u);
  sign = (u >> 16) & 0x8000u;
  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)(sign | 0x7e00u);
  exp = (int)((u >> 23) & 0xffu) - 127 + 15;
  mant = u & 0x7fffffu;
  if (exp >= 31) return (uint16_t)(sign | 0x7c00u);
  if (exp <= 0) { /* subnormal half or zero */
    uint32_t shift, m, r;
    if (exp < -10) return (uint16_t)sign;
    m = mant | 0x800000u;
    shift = (uint32_t)(14 - exp);
    r = m >> shift;
    if ((m & ((1u << shift) - 1)) > (1u << (shift - 1)) ||
        ((m & ((1u << shift) - 1)) == (1u << (shift - 1)) && (r & 1u)))
      ++r;
    return (uint16_t)(sign | r);
  }
  {
    uint32_t h = sign | ((uint32_t)exp << 10) | (mant >> 13);
    const uint32_t rest = mant & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h; /* may carry into Inf: correct */
    return (uint16_t)h;
  }
}

static float bf16_to_float(uint16_t b) {
  const uint32_t u = (uint32_t)b << 16;
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

static uint16_t float_to_bf16(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return (uint16_t)(u >> 16);
}

static double load(const bnscope_tensor* t, int64_t i) {
  switch (t->dtype) {
    case BNSCOPE_DTYPE_FLOAT16:
      return half_to_float(((const uint16_t*)t->data)[i]);
    case BNSCOPE_DTYPE_BFLOAT16:
      return bf16_to_float(((const uint16_t*)t->data)[i]);
    case BNSCOPE_DTYPE_FLOAT32:
      return ((const float*)t->data)[i];
    default:
      return ((const double*)t->data)[i];
  }
}

static void store(bnscope_tensor* t, int64_t i, double v) {
  switch (t->dtype) {
    case BNSCOPE_DTYPE_FLOAT16:
      ((uint16_t*)t->data)[i] = float_to_half((float)v);
      break;
    case BNSCOPE_DTYPE_BFLOAT16:
      ((uint16_t*)t->data)[i] = float_to_bf16((float)v);
      break;
    case BNSCOPE_DTYPE_FLOAT32:
      ((float*)t->data)[i] = (float)v;
      break;
    default:
      ((double*)t->data)[i] = v;
      break;
  }
}

static const bnscope_tensor* input(const bnscope_call* call, const char* name) {
  int32_t i;
  for (i = 0; i < call->num_inputs; ++i)
    if (strcmp(call->inputs[i]->name, name) == 0) return call->inputs[i];
  return NULL;
}

static bnscope_tensor* output(const bnscope_call* call, const char* name) {
  int32_t i;
  for (i = 0; i < call->num_outputs; ++i)
    if (strcmp(call->outputs[i]->name, name) == 0) return call->outputs[i];
  return NULL;
}

/* The channel of flat element i of x. */
static int64_t channel_of(const bnscope_call* call, const bnscope_tensor* x, int64_t i) {
  const int channels_last =
      call->layout == BNSCOPE_LAYOUT_NHWC || call->layout == BNSCOPE_LAYOUT_NDHWC;
  int64_t inner = 1;
  int32_t d;
#ifdef EXAMPLE_BUG_LAYOUT
  if (call->layout == BNSCOPE_LAYOUT_NCHW) return i % x->dims[1];
#endif
  if (channels_last) return i % x->dims[x->rank - 1];
  for (d = 2; d < x->rank; ++d) inner *= x->dims[d];
  return (i / inner) % x->dims[1];
}

static int32_t run_grad(const bnscope_kernel* kernel, const bnscope_call* call, char* message,
                        size_t message_size) {
  const bnscope_tensor *dy = input(call, "y_backprop"), *x = input(call, "x"),
                       *scale = input(call, "scale"), *rs1 = input(call, "reserve_space_1"),
                       *rs2 = input(call, "reserve_space_2");
  bnscope_tensor *dx = output(call, "x_backprop"), *dscale = output(call, "scale_backprop"),
                 *doffset = output(call, "offset_backprop");
  const int training = call->mode == BNSCOPE_MODE_TRAINING;
#ifdef EXAMPLE_BUG_RESERVE
  const int rs2_is_inv_std = training && call->reserve_convention == BNSCOPE_RESERVE_VARIANCE;
#else
  const int rs2_is_inv_std = training && call->reserve_convention == BNSCOPE_RESERVE_INV_STD;
#endif
  int64_t n, c, i, channels, per_channel;
  double *sum_dy, *sum_dy_xc, *inv_std;
  (void)kernel;
  if (!dy || !x || !scale || !rs1 || !rs2 || !dx || !dscale || !doffset) {
    snprintf(message, message_size, "%s: an input or output is missing", call->op);
    return BNSCOPE_ERROR;
  }
  channels = scale->dims[0];
  n = bnscope_numel(x);
  per_channel = n / channels;
  sum_dy = (double*)calloc((size_t)(3 * channels), sizeof(double));
  if (!sum_dy) {
    snprintf(message, message_size, "out of memory for %lld channels", (long long)channels);
    return BNSCOPE_ERROR;
  }
  sum_dy_xc = sum_dy + channels;
  inv_std = sum_dy_xc + channels;
  for (c = 0; c < channels; ++c) {
    const double v = load(rs2, c);
    inv_std[c] = rs2_is_inv_std ? v : 1.0 / sqrt(v + call->epsilon);
  }
  for (i = 0; i < n; ++i) {
    c = channel_of(call, x, i);
    sum_dy[c] += load(dy, i);
    sum_dy_xc[c] += load(dy, i) * (load(x, i) - load(rs1, c));
  }
  for (i = 0; i < n; ++i) {
    const double g = load(dy, i), xc = load(x, i) - load(rs1, (c = channel_of(call, x, i)));
    const double k = load(scale, c) * inv_std[c];
    if (training)
      store(dx, i,
            k * (g - sum_dy[c] / (double)per_channel -
                 xc * inv_std[c] * inv_std[c] * sum_dy_xc[c] / (double)per_channel));
    else
      store(dx, i, k * g);
  }
  for (c = 0; c < channels; ++c) {
    store(dscale, c, sum_dy_xc[c] * inv_std[c]);
    store(doffset, c, sum_dy[c]);
  }
  free(sum_dy);
  return BNSCOPE_OK;
}

#define EXAMPLE_DTYPES                                                        \
  (BNSCOPE_BIT(BNSCOPE_DTYPE_FLOAT16) | BNSCOPE_BIT(BNSCOPE_DTYPE_BFLOAT16) | \
   BNSCOPE_BIT(BNSCOPE_DTYPE_FLOAT32))
#define EXAMPLE_LAYOUTS                                                  \
  (BNSCOPE_BIT(BNSCOPE_LAYOUT_NHWC) | BNSCOPE_BIT(BNSCOPE_LAYOUT_NCHW) | \
   BNSCOPE_BIT(BNSCOPE_LAYOUT_NDHWC) | BNSCOPE_BIT(BNSCOPE_LAYOUT_NCDHW))

static const bnscope_kernel grad_v3 = {
    sizeof(bnscope_kernel),
    "FusedBatchNormGradV3",
    EXAMPLE_DTYPES,
    EXAMPLE_LAYOUTS,
    BNSCOPE_BIT(BNSCOPE_MODE_TRAINING) | BNSCOPE_BIT(BNSCOPE_MODE_INFERENCE),
    BNSCOPE_BIT(BNSCOPE_RESERVE_VARIANCE) | BNSCOPE_BIT(BNSCOPE_RESERVE_INV_STD),
    NULL,
    run_grad,
    NULL};
static const bnscope_kernel grad_v2 = {
    sizeof(bnscope_kernel),
    "FusedBatchNormGradV2",
    EXAMPLE_DTYPES,
    BNSCOPE_BIT(BNSCOPE_LAYOUT_NHWC) | BNSCOPE_BIT(BNSCOPE_LAYOUT_NCHW),
    BNSCOPE_BIT(BNSCOPE_MODE_TRAINING) | BNSCOPE_BIT(BNSCOPE_MODE_INFERENCE),
    BNSCOPE_BIT(BNSCOPE_RESERVE_VARIANCE) | BNSCOPE_BIT(BNSCOPE_RESERVE_INV_STD),
    NULL,
    run_grad,
    NULL};
static const bnscope_kernel* const kernels[] = {&grad_v3, &grad_v2};

BNSCOPE_PLUGIN_EXPORT int32_t bnscope_plugin_init(const bnscope_host_api* host,
                                                  bnscope_plugin* plugin) {
  if (bnscope_plugin_begin(host, plugin) != BNSCOPE_OK) return BNSCOPE_ABI_MISMATCH;
  plugin->name = EXAMPLE_NAME;
  plugin->description = "plain C FusedBatchNormGradV2/V3, sums in double (bnscope's example)";
  plugin->version = "1.0.0";
  plugin->device = BNSCOPE_DEVICE_CPU;
  plugin->num_kernels = (int32_t)(sizeof kernels / sizeof kernels[0]);
  plugin->kernels = kernels;
  return BNSCOPE_OK;
}
