/* Plugins that misbehave on purpose, for the isolation and ABI tests. One source, built several
 * times with a MODE:
 *   MODE_RUNTIME   FusedBatchNormGradV3 whose run() misbehaves by the call's epsilon (below);
 *                  any other epsilon writes zeros and succeeds
 *   MODE_NEWER     says it was built for the ABI after this one
 *   MODE_OLDER     structs as an older header had them: no kernel `user`, no plugin `shutdown`
 *   MODE_INIT_CRASH  bnscope_plugin_init dereferences NULL
 *   MODE_NO_ENTRY  exports no bnscope_plugin_init
 *   MODE_CUDA      MODE_RUNTIME's kernel declared as a CUDA plugin (never run on a device)
 */
#include <bnscope/plugin.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EPS_SEGV 0.25
#define EPS_ABORT 0.125
#define EPS_HANG 0.0625
#define EPS_PAST_END 0.03125
#define EPS_BEFORE_START 0.015625
#define EPS_INTO_INPUT 0.0078125
#define EPS_ERROR 0.00390625
#define EPS_UNSUPPORTED 0.001953125

static bnscope_tensor* output(const bnscope_call* call, const char* name) {
  int32_t i;
  for (i = 0; i < call->num_outputs; ++i)
    if (strcmp(call->outputs[i]->name, name) == 0) return call->outputs[i];
  return NULL;
}

static int32_t run(const struct bnscope_kernel* k, const bnscope_call* call, char* message,
                   size_t size) {
  bnscope_tensor* dx = output(call, "x_backprop");
  const double e = call->epsilon;
  int32_t i;
  (void)k;
  if (e == EPS_SEGV) {
    volatile int* p = NULL;
    *p = 1;
  } else if (e == EPS_ABORT) {
    abort();
  } else if (e == EPS_HANG) {
    for (;;) pause();
  } else if (e == EPS_PAST_END) {
    memset((char*)dx->data + bnscope_numel(dx) * 4, 0x7f, 4);
  } else if (e == EPS_BEFORE_START) {
    memset((char*)dx->data - 4, 0x7f, 4);
  } else if (e == EPS_INTO_INPUT) {
    memset(call->inputs[1]->data, 0, 4);
  } else if (e == EPS_ERROR) {
    snprintf(message, size, "planted error for %s", call->op);
    return BNSCOPE_ERROR;
  }
  for (i = 0; i < call->num_outputs; ++i)
    if (call->outputs[i]->data)
      memset(call->outputs[i]->data, 0, (size_t)bnscope_numel(call->outputs[i]) * 4);
  return BNSCOPE_OK;
}

static int32_t supports(const struct bnscope_kernel* k, const bnscope_call* call, char* why,
                        size_t size) {
  (void)k;
  if (call->epsilon == EPS_UNSUPPORTED) {
    snprintf(why, size, "planted refusal of epsilon %g", call->epsilon);
    return BNSCOPE_UNSUPPORTED;
  }
  return BNSCOPE_OK;
}

#ifndef MODE_NO_ENTRY

static bnscope_kernel kernel = {
    sizeof(bnscope_kernel),
    "FusedBatchNormGradV3",
    BNSCOPE_BIT(BNSCOPE_DTYPE_FLOAT32),
    BNSCOPE_BIT(BNSCOPE_LAYOUT_NHWC),
    BNSCOPE_BIT(BNSCOPE_MODE_TRAINING) | BNSCOPE_BIT(BNSCOPE_MODE_INFERENCE),
    BNSCOPE_BIT(BNSCOPE_RESERVE_VARIANCE),
    supports,
    run,
    NULL};
static const bnscope_kernel* const kernels[] = {&kernel};

BNSCOPE_PLUGIN_EXPORT int32_t bnscope_plugin_init(const bnscope_host_api* host,
                                                  bnscope_plugin* plugin) {
#if defined(MODE_INIT_CRASH)
  volatile int* p = NULL;
  (void)host;
  (void)plugin;
  *p = 1;
  return BNSCOPE_OK;
#elif defined(MODE_NEWER)
  (void)host;
  plugin->abi_version = BNSCOPE_PLUGIN_ABI_VERSION + 1;
  return BNSCOPE_ABI_MISMATCH;
#else
  if (bnscope_plugin_begin(host, plugin) != BNSCOPE_OK) return BNSCOPE_ABI_MISMATCH;
#if defined(MODE_OLDER)
  kernel.struct_size = (uint32_t)offsetof(bnscope_kernel, user);
  plugin->struct_size = (uint32_t)offsetof(bnscope_plugin, shutdown);
#endif
  plugin->name = PLUGIN_NAME;
  plugin->description = "misbehaves on purpose";
  plugin->version = "0.0.1";
#ifdef MODE_CUDA
  plugin->device = BNSCOPE_DEVICE_CUDA;
#else
  plugin->device = BNSCOPE_DEVICE_CPU;
#endif
  plugin->num_kernels = 1;
  plugin->kernels = kernels;
  return BNSCOPE_OK;
#endif
}

#else
BNSCOPE_PLUGIN_EXPORT int32_t not_the_entry_point(void) {
  return (int32_t)(size_t)&run + (int32_t)(size_t)&supports;
}
#endif
