/* bnscope/plugin.h: the C ABI through which a user's batch-norm kernel becomes a bnscope backend.
 *
 * A plugin is a shared library exporting one function, bnscope_plugin_init. bnscope loads it in
 * a helper process (bnscope-plugin-host), never in its own, so a kernel that crashes, hangs or
 * writes out of bounds costs one run, not the app. C99, no bnscope types; include it from C or
 * C++.
 *
 * What the ABI guarantees:
 *   - Every struct starts with uint32_t struct_size; the structs the plugin fills also carry
 *     abi_version as their second member. Those two members never move. New members are only
 *     ever appended, so an older plugin reads the prefix it knows of what bnscope hands it, and
 *     bnscope reads only the struct_size bytes a plugin declared (members past them count as 0
 *     or NULL).
 *   - bnscope loads every plugin whose abi_version is at most its own
 *     (BNSCOPE_PLUGIN_ABI_VERSION when bnscope was built) and refuses a newer one with both
 *     versions named.
 *   - Arrays of structs are arrays of pointers, so a struct that grows never shifts its
 *     neighbours.
 *   - Constants keep their values; new ones get new values.
 *   - Strings the plugin returns (names, descriptions) must stay valid until the library is
 *     unloaded; bnscope copies them after bnscope_plugin_init returns.
 *
 * The call: bnscope validates the problem as TensorFlow does, asks the kernel's declared masks
 * (and supports(), when given) whether it takes the variant, allocates every output with
 * TensorFlow's shapes, and calls run() with the inputs and outputs in TensorFlow's order. Tensors
 * are dense, row-major, in the op's layout; strides are given in elements for kernels that want
 * them. An empty problem (no elements) never reaches run(): bnscope produces TensorFlow's empty
 * result itself. supports() gets the same call with every data pointer NULL. A CPU plugin gets
 * host memory: inputs are read-only and each tensor ends at an inaccessible page, so a write past
 * an output or into an input stops the helper with SIGSEGV, reported as the plugin's crash. A
 * CUDA plugin gets device pointers and the stream to launch on; bnscope times run() with events
 * on that stream and waits for it, so run() need not synchronize.
 */
#ifndef BNSCOPE_PLUGIN_H
#define BNSCOPE_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BNSCOPE_PLUGIN_ABI_VERSION 1u
#define BNSCOPE_PLUGIN_MAX_RANK 8

#if defined(_WIN32)
#define BNSCOPE_PLUGIN_EXPORT __declspec(dllexport)
#else
#define BNSCOPE_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

/* Status codes: bnscope_plugin_init, supports() and run() return one of these. */
#define BNSCOPE_OK 0
#define BNSCOPE_ERROR 1        /* run() failed; the message says why */
#define BNSCOPE_UNSUPPORTED 2  /* supports(): not this variant; the message says why */
#define BNSCOPE_ABI_MISMATCH 3 /* bnscope_plugin_init: the host's structs are too old */

/* Element types (T and U of TensorFlow's ops). */
#define BNSCOPE_DTYPE_FLOAT16 1
#define BNSCOPE_DTYPE_BFLOAT16 2
#define BNSCOPE_DTYPE_FLOAT32 3
#define BNSCOPE_DTYPE_FLOAT64 4

/* Where a plugin's kernels run, and where a tensor's data lives. */
#define BNSCOPE_DEVICE_CPU 1
#define BNSCOPE_DEVICE_CUDA 2

/* Data layouts (TensorFlow's data_format). */
#define BNSCOPE_LAYOUT_NHWC 1
#define BNSCOPE_LAYOUT_NCHW 2
#define BNSCOPE_LAYOUT_NDHWC 3
#define BNSCOPE_LAYOUT_NCDHW 4

/* Modes (TensorFlow's is_training). */
#define BNSCOPE_MODE_TRAINING 1
#define BNSCOPE_MODE_INFERENCE 2

/* What reserve_space_2 of a training-mode gradient holds: the batch variance (TensorFlow's CPU
 * kernels) or 1/sqrt(variance + epsilon) (cuDNN, and so TensorFlow on GPU). */
#define BNSCOPE_RESERVE_VARIANCE 1
#define BNSCOPE_RESERVE_INV_STD 2

/* A set of the constants above, for a kernel's declared masks. */
#define BNSCOPE_BIT(constant) (1u << (constant))

typedef struct bnscope_tensor {
  uint32_t struct_size;
  int32_t dtype;  /* BNSCOPE_DTYPE_* */
  int32_t device; /* BNSCOPE_DEVICE_*: a CUDA plugin gets device pointers */
  int32_t rank;
  int64_t dims[BNSCOPE_PLUGIN_MAX_RANK];
  int64_t strides[BNSCOPE_PLUGIN_MAX_RANK]; /* in elements */
  void* data;                               /* NULL when the tensor has no elements */
  const char* name; /* TensorFlow's name: "x", "y_backprop", "x_backprop", "reserve_space_1" */
} bnscope_tensor;

typedef struct bnscope_call {
  uint32_t struct_size;
  uint32_t abi_version;              /* the host's */
  const char* op;                    /* TensorFlow's op name, "FusedBatchNormGradV3" */
  int32_t dtype;                     /* T */
  int32_t stats_dtype;               /* U: scale, reserve spaces and per-channel outputs */
  int32_t layout;                    /* BNSCOPE_LAYOUT_* (NHWC for the global-normalization ops) */
  int32_t mode;                      /* BNSCOPE_MODE_* */
  int32_t reserve_convention;        /* BNSCOPE_RESERVE_*, for training-mode gradients */
  int32_t scale_after_normalization; /* the global-normalization ops' attr */
  double epsilon;                /* epsilon or variance_epsilon, as the float TensorFlow holds */
  double exponential_avg_factor; /* the forward V2/V3 ops' attr; 1 otherwise */
  int32_t num_inputs;
  int32_t num_outputs;
  const bnscope_tensor* const* inputs; /* TensorFlow's input order */
  bnscope_tensor* const* outputs;      /* TensorFlow's output order, allocated by bnscope */
  void* stream;                        /* a CUDA plugin's cudaStream_t; NULL for CPU plugins */
  int32_t threads; /* a CPU plugin may use up to this many threads; 0: its own choice */
} bnscope_call;

struct bnscope_kernel;

/* Writes at most size bytes (NUL included) of a one-line message. */
typedef int32_t (*bnscope_supports_fn)(const struct bnscope_kernel* kernel,
                                       const bnscope_call* call, char* why, size_t why_size);
typedef int32_t (*bnscope_run_fn)(const struct bnscope_kernel* kernel, const bnscope_call* call,
                                  char* message, size_t message_size);

typedef struct bnscope_kernel {
  uint32_t struct_size;
  const char* op;               /* one op of bnscope's catalog: "FusedBatchNormGradV3" */
  uint32_t dtypes;              /* BNSCOPE_BIT(BNSCOPE_DTYPE_FLOAT32) | ...: T it takes */
  uint32_t layouts;             /* BNSCOPE_BIT(BNSCOPE_LAYOUT_*) */
  uint32_t modes;               /* BNSCOPE_BIT(BNSCOPE_MODE_*) */
  uint32_t conventions;         /* BNSCOPE_BIT(BNSCOPE_RESERVE_*) read in training-mode gradients */
  bnscope_supports_fn supports; /* optional: finer checks after the masks; NULL takes all */
  bnscope_run_fn run;           /* required */
  void* user;                   /* the plugin's own */
} bnscope_kernel;

typedef struct bnscope_plugin {
  uint32_t struct_size;    /* set by bnscope to its size; the plugin sets its own (never more) */
  uint32_t abi_version;    /* set by bnscope to its version; the plugin sets its own */
  const char* name;        /* the backend's name: letters, digits, '-', '_'; "my-kernel" */
  const char* description; /* one line */
  const char* version;     /* the plugin's own version, "1.2.0" */
  int32_t device;          /* BNSCOPE_DEVICE_* */
  int32_t num_kernels;
  const bnscope_kernel* const* kernels;
  void (*shutdown)(void); /* optional: called before the library is unloaded */
} bnscope_plugin;

typedef struct bnscope_host_api {
  uint32_t struct_size;
  uint32_t abi_version;
  const char* host_version; /* bnscope's version, "0.1.0" */
  /* Logs one line to bnscope's plugin log (shown with a crash's message). */
  void (*log)(const struct bnscope_host_api* host, const char* message);
  void* host_data;
} bnscope_host_api;

/* The one entry point. Fills *plugin and returns BNSCOPE_OK. bnscope zeroes *plugin and sets its
 * struct_size and abi_version first; call bnscope_plugin_begin before writing anything else. */
typedef int32_t (*bnscope_plugin_init_fn)(const bnscope_host_api* host, bnscope_plugin* plugin);
BNSCOPE_PLUGIN_EXPORT int32_t bnscope_plugin_init(const bnscope_host_api* host,
                                                  bnscope_plugin* plugin);

/* Says which ABI this plugin was built for and checks that the host's structs can hold what this
 * header's declare; BNSCOPE_ABI_MISMATCH means: return it, write nothing more. */
static inline int32_t bnscope_plugin_begin(const bnscope_host_api* host, bnscope_plugin* plugin) {
  plugin->abi_version = BNSCOPE_PLUGIN_ABI_VERSION; /* the two leading members never move */
  if (!host || host->abi_version < BNSCOPE_PLUGIN_ABI_VERSION ||
      plugin->struct_size < sizeof(bnscope_plugin))
    return BNSCOPE_ABI_MISMATCH;
  plugin->struct_size = (uint32_t)sizeof(bnscope_plugin);
  return BNSCOPE_OK;
}

/* The number of elements of a tensor. */
static inline int64_t bnscope_numel(const bnscope_tensor* t) {
  int64_t n = 1;
  int32_t i;
  for (i = 0; i < t->rank; ++i) n *= t->dims[i];
  return n;
}

#ifdef __cplusplus
}
#endif

#endif /* BNSCOPE_PLUGIN_H */
