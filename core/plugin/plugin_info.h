#pragma once
// What a plugin says about itself (include/bnscope/plugin.h), as plain data the parent keeps: read
// from the C structs in the process that loads the library and sent to bnscope as JSON. The
// declared masks answer "does it take this variant" without asking the plugin.

#include <cstdint>
#include <string>
#include <vector>

#include "bnscope/plugin.h"
#include "io/json_value.h"
#include "ops/prepared.h"

namespace bnscope {

struct PluginKernelInfo {
  std::string op;
  std::uint32_t dtypes = 0, layouts = 0, modes = 0, conventions = 0;  // BNSCOPE_BIT masks
  bool has_supports = false;
};

struct PluginInfo {
  std::string path;  // the library
  std::string name, description, version;
  int device = BNSCOPE_DEVICE_CPU;
  std::uint32_t abi_version = 0;  // the plugin's
  std::vector<PluginKernelInfo> kernels;
  // Why the process that loaded it cannot run it ("no CUDA device"); empty when it can.
  std::string unavailable;

  const PluginKernelInfo* kernel_for(std::string_view op) const;
  std::string device_name() const;  // "cpu", "cuda"
};

// The ABI's constants for bnscope's types.
std::int32_t abi_dtype(DType t);
std::int32_t abi_layout(DataFormat f);
DType dtype_from_abi(std::int32_t d);  // throws Error for an unknown value

// "" when a kernel of the plugin declares p's op, dtype, layout, mode and reserve convention;
// otherwise which of them it lacks, naming what it takes.
std::string undeclared_reason(const PluginInfo& info, const Prepared& p);

// "FusedBatchNormGradV3 NHWC float16": the variant a crash message names.
std::string variant_text(const Prepared& p);

JsonValue plugin_info_json(const PluginInfo& info);
PluginInfo plugin_info_from_json(const JsonValue& v);

}  // namespace bnscope
