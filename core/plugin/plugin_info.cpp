#include "plugin/plugin_info.h"

#include "tensor/error.h"

namespace bnscope {

namespace {

std::string mask_words(std::uint32_t mask,
                       std::initializer_list<std::pair<int, std::string_view>> names) {
  std::string s;
  for (const auto& [bit, word] : names)
    if (mask & BNSCOPE_BIT(bit)) s += (s.empty() ? "" : ", ") + std::string(word);
  return s.empty() ? "none" : s;
}

std::string dtype_words(std::uint32_t m) {
  return mask_words(m, {{BNSCOPE_DTYPE_FLOAT16, "float16"},
                        {BNSCOPE_DTYPE_BFLOAT16, "bfloat16"},
                        {BNSCOPE_DTYPE_FLOAT32, "float32"},
                        {BNSCOPE_DTYPE_FLOAT64, "float64"}});
}
std::string layout_words(std::uint32_t m) {
  return mask_words(m, {{BNSCOPE_LAYOUT_NHWC, "NHWC"},
                        {BNSCOPE_LAYOUT_NCHW, "NCHW"},
                        {BNSCOPE_LAYOUT_NDHWC, "NDHWC"},
                        {BNSCOPE_LAYOUT_NCDHW, "NCDHW"}});
}

double number_or(const JsonValue& v, std::string_view key, double fallback) {
  const JsonValue* m = v.find(key);
  return m && m->kind == JsonValue::Kind::Number ? m->number : fallback;
}
std::string string_or(const JsonValue& v, std::string_view key) {
  const JsonValue* m = v.find(key);
  return m && m->kind == JsonValue::Kind::String ? m->string : std::string();
}

}  // namespace

const PluginKernelInfo* PluginInfo::kernel_for(std::string_view op) const {
  for (const PluginKernelInfo& k : kernels)
    if (k.op == op) return &k;
  return nullptr;
}

std::string PluginInfo::device_name() const {
  return device == BNSCOPE_DEVICE_CUDA ? "cuda" : "cpu";
}

std::int32_t abi_dtype(DType t) {
  switch (t) {
    case DType::F16:
      return BNSCOPE_DTYPE_FLOAT16;
    case DType::BF16:
      return BNSCOPE_DTYPE_BFLOAT16;
    case DType::F32:
      return BNSCOPE_DTYPE_FLOAT32;
    case DType::F64:
      break;
  }
  return BNSCOPE_DTYPE_FLOAT64;
}

DType dtype_from_abi(std::int32_t d) {
  switch (d) {
    case BNSCOPE_DTYPE_FLOAT16:
      return DType::F16;
    case BNSCOPE_DTYPE_BFLOAT16:
      return DType::BF16;
    case BNSCOPE_DTYPE_FLOAT32:
      return DType::F32;
    case BNSCOPE_DTYPE_FLOAT64:
      return DType::F64;
  }
  throw Error(ErrorCode::InvalidArgument, "unknown plugin dtype " + std::to_string(d));
}

std::int32_t abi_layout(DataFormat f) {
  switch (f) {
    case DataFormat::NHWC:
      return BNSCOPE_LAYOUT_NHWC;
    case DataFormat::NCHW:
      return BNSCOPE_LAYOUT_NCHW;
    case DataFormat::NDHWC:
      return BNSCOPE_LAYOUT_NDHWC;
    case DataFormat::NCDHW:
      break;
  }
  return BNSCOPE_LAYOUT_NCDHW;
}

std::string undeclared_reason(const PluginInfo& info, const Prepared& p) {
  const PluginKernelInfo* k = info.kernel_for(p.op->name);
  if (!k) {
    std::string ops;
    for (const PluginKernelInfo& kk : info.kernels) ops += (ops.empty() ? "" : ", ") + kk.op;
    return "plugin " + info.name + " has no kernel for " + std::string(p.op->name) + " (it has " +
           (ops.empty() ? std::string("none") : ops) + ")";
  }
  const std::string lead = "plugin " + info.name + "'s " + k->op + " ";
  if (!(k->dtypes & BNSCOPE_BIT(abi_dtype(p.t))))
    return lead + "takes " + dtype_words(k->dtypes) + ", not " + std::string(dtype_name(p.t));
  if (p.op->has_attr("data_format") && !(k->layouts & BNSCOPE_BIT(abi_layout(p.format))))
    return lead + "takes " + layout_words(k->layouts) + ", not " +
           std::string(data_format_name(p.format));
  if (p.op->has_modes()) {
    const int mode = p.is_training ? BNSCOPE_MODE_TRAINING : BNSCOPE_MODE_INFERENCE;
    if (!(k->modes & BNSCOPE_BIT(mode)))
      return lead + "does not run in " + std::string(mode_name(p.is_training)) + " mode";
  }
  if (p.op->is_grad && p.op->has_modes() && p.is_training) {
    const int conv = p.convention == ReserveConvention::InvStd ? BNSCOPE_RESERVE_INV_STD
                                                               : BNSCOPE_RESERVE_VARIANCE;
    if (!(k->conventions & BNSCOPE_BIT(conv)))
      return lead + "does not read reserve_space_2 as " +
             std::string(convention_name(p.convention));
  }
  return {};
}

std::string variant_text(const Prepared& p) {
  std::string s(p.op->name);
  if (p.op->has_attr("data_format")) s += " " + std::string(data_format_name(p.format));
  return s + " " + std::string(dtype_name(p.t));
}

JsonValue plugin_info_json(const PluginInfo& info) {
  JsonValue v = JsonValue::object();
  v.add("path", JsonValue::of(info.path));
  v.add("name", JsonValue::of(info.name));
  v.add("description", JsonValue::of(info.description));
  v.add("version", JsonValue::of(info.version));
  v.add("device", JsonValue::of(static_cast<double>(info.device)));
  v.add("abi_version", JsonValue::of(static_cast<double>(info.abi_version)));
  v.add("unavailable", JsonValue::of(info.unavailable));
  JsonValue ks;
  ks.kind = JsonValue::Kind::Array;
  for (const PluginKernelInfo& k : info.kernels) {
    JsonValue kv = JsonValue::object();
    kv.add("op", JsonValue::of(k.op));
    kv.add("dtypes", JsonValue::of(static_cast<double>(k.dtypes)));
    kv.add("layouts", JsonValue::of(static_cast<double>(k.layouts)));
    kv.add("modes", JsonValue::of(static_cast<double>(k.modes)));
    kv.add("conventions", JsonValue::of(static_cast<double>(k.conventions)));
    kv.add("has_supports", JsonValue::of(k.has_supports));
    ks.items.push_back(std::move(kv));
  }
  v.add("kernels", std::move(ks));
  return v;
}

PluginInfo plugin_info_from_json(const JsonValue& v) {
  PluginInfo info;
  info.path = string_or(v, "path");
  info.name = string_or(v, "name");
  info.description = string_or(v, "description");
  info.version = string_or(v, "version");
  info.device = static_cast<int>(number_or(v, "device", BNSCOPE_DEVICE_CPU));
  info.abi_version = static_cast<std::uint32_t>(number_or(v, "abi_version", 0));
  info.unavailable = string_or(v, "unavailable");
  if (const JsonValue* ks = v.find("kernels"))
    for (const JsonValue& kv : ks->items) {
      PluginKernelInfo k;
      k.op = string_or(kv, "op");
      k.dtypes = static_cast<std::uint32_t>(number_or(kv, "dtypes", 0));
      k.layouts = static_cast<std::uint32_t>(number_or(kv, "layouts", 0));
      k.modes = static_cast<std::uint32_t>(number_or(kv, "modes", 0));
      k.conventions = static_cast<std::uint32_t>(number_or(kv, "conventions", 0));
      const JsonValue* s = kv.find("has_supports");
      k.has_supports = s && s->boolean;
      info.kernels.push_back(std::move(k));
    }
  return info;
}

}  // namespace bnscope
