#include "plugin/plugin_call.h"

#include <cstring>

#include "ops/outputs.h"
#include "plugin/plugin_info.h"
#include "tensor/error.h"

namespace bnscope {

namespace {

JsonValue tensors_json(const std::vector<CallTensor>& ts) {
  JsonValue a;
  a.kind = JsonValue::Kind::Array;
  for (const CallTensor& t : ts) {
    JsonValue v = JsonValue::object();
    v.add("name", JsonValue::of(t.name));
    v.add("dtype", JsonValue::of(std::string(dtype_name(t.dtype))));
    JsonValue dims;
    dims.kind = JsonValue::Kind::Array;
    for (std::int64_t d : t.shape) dims.items.push_back(JsonValue::of(static_cast<double>(d)));
    v.add("shape", std::move(dims));
    a.items.push_back(std::move(v));
  }
  return a;
}

double number(const JsonValue& v, std::string_view key) {
  const JsonValue& m = v.at(key);
  if (m.kind != JsonValue::Kind::Number)
    fail("plugin call: " + std::string(key) + " is not a number");
  return m.number;
}

std::vector<CallTensor> tensors_from_json(const JsonValue& a) {
  std::vector<CallTensor> out;
  for (const JsonValue& v : a.items) {
    CallTensor t;
    t.name = v.at("name").string;
    const auto d = parse_dtype(v.at("dtype").string);
    if (!d) fail("plugin call: tensor " + t.name + " has an unknown dtype");
    t.dtype = *d;
    for (const JsonValue& x : v.at("shape").items) {
      if (x.kind != JsonValue::Kind::Number || x.number < 0)
        fail("plugin call: tensor " + t.name + " has a bad dimension");
      t.shape.push_back(static_cast<std::int64_t>(x.number));
    }
    if (t.shape.size() > BNSCOPE_PLUGIN_MAX_RANK)
      fail("plugin call: tensor " + t.name + " has rank over 8");
    out.push_back(std::move(t));
  }
  return out;
}

bnscope_tensor abi_tensor(const CallTensor& t, void* data) {
  bnscope_tensor a{};
  a.struct_size = sizeof(bnscope_tensor);
  a.dtype = abi_dtype(t.dtype);
  a.device = BNSCOPE_DEVICE_CPU;
  a.rank = static_cast<std::int32_t>(t.shape.size());
  std::int64_t stride = 1;
  for (int i = a.rank - 1; i >= 0; --i) {
    a.dims[i] = t.shape[static_cast<std::size_t>(i)];
    a.strides[i] = stride;
    stride *= a.dims[i];
  }
  a.data = num_elements(t.shape) > 0 ? data : nullptr;
  a.name = t.name.c_str();
  return a;
}

}  // namespace

CallSpec make_call_spec(const Prepared& p, int threads) {
  CallSpec c;
  c.op = std::string(p.op->name);
  c.variant = variant_text(p);
  c.t = p.t;
  c.u = p.u;
  c.layout = p.op->has_attr("data_format") ? abi_layout(p.format) : BNSCOPE_LAYOUT_NHWC;
  c.mode = p.is_training ? BNSCOPE_MODE_TRAINING : BNSCOPE_MODE_INFERENCE;
  c.convention = p.convention == ReserveConvention::InvStd ? BNSCOPE_RESERVE_INV_STD
                                                           : BNSCOPE_RESERVE_VARIANCE;
  c.scale_after_normalization = p.scale_after_normalization ? 1 : 0;
  c.epsilon = p.epsilon;
  c.exponential_avg_factor = p.exponential_avg_factor;
  c.threads = threads;
  for (std::size_t i = 0; i < p.inputs.size(); ++i)
    c.inputs.push_back(
        {std::string(p.op->inputs[i].name), p.inputs[i].dtype(), p.inputs[i].shape()});
  for (const ArgSpec& o : p.op->outputs)
    c.outputs.push_back({std::string(o.name), resolve_arg_type(*p.op, o.type, p.t),
                         output_shape(p, o.name).value_or(Shape{0})});
  return c;
}

JsonValue call_spec_json(const CallSpec& c) {
  JsonValue v = JsonValue::object();
  v.add("op", JsonValue::of(c.op));
  v.add("variant", JsonValue::of(c.variant));
  v.add("t", JsonValue::of(std::string(dtype_name(c.t))));
  v.add("u", JsonValue::of(std::string(dtype_name(c.u))));
  v.add("layout", JsonValue::of(static_cast<double>(c.layout)));
  v.add("mode", JsonValue::of(static_cast<double>(c.mode)));
  v.add("convention", JsonValue::of(static_cast<double>(c.convention)));
  v.add("scale_after_normalization",
        JsonValue::of(static_cast<double>(c.scale_after_normalization)));
  v.add("epsilon", JsonValue::of(c.epsilon));
  v.add("exponential_avg_factor", JsonValue::of(c.exponential_avg_factor));
  v.add("threads", JsonValue::of(static_cast<double>(c.threads)));
  v.add("inputs", tensors_json(c.inputs));
  v.add("outputs", tensors_json(c.outputs));
  return v;
}

CallSpec call_spec_from_json(const JsonValue& v) {
  CallSpec c;
  c.op = v.at("op").string;
  c.variant = v.at("variant").string;
  const auto t = parse_dtype(v.at("t").string), u = parse_dtype(v.at("u").string);
  if (!t || !u) fail("plugin call: unknown dtype");
  c.t = *t;
  c.u = *u;
  c.layout = static_cast<std::int32_t>(number(v, "layout"));
  c.mode = static_cast<std::int32_t>(number(v, "mode"));
  c.convention = static_cast<std::int32_t>(number(v, "convention"));
  c.scale_after_normalization = static_cast<std::int32_t>(number(v, "scale_after_normalization"));
  c.epsilon = number(v, "epsilon");
  c.exponential_avg_factor = number(v, "exponential_avg_factor");
  c.threads = static_cast<std::int32_t>(number(v, "threads"));
  c.inputs = tensors_from_json(v.at("inputs"));
  c.outputs = tensors_from_json(v.at("outputs"));
  return c;
}

AbiCall::AbiCall(const CallSpec& spec, const std::vector<void*>& input_data,
                 const std::vector<void*>& output_data, std::int32_t device, void* stream) {
  tensors_.reserve(spec.inputs.size() + spec.outputs.size());
  for (std::size_t i = 0; i < spec.inputs.size(); ++i)
    tensors_.push_back(abi_tensor(spec.inputs[i], i < input_data.size() ? input_data[i] : nullptr));
  for (std::size_t i = 0; i < spec.outputs.size(); ++i)
    tensors_.push_back(
        abi_tensor(spec.outputs[i], i < output_data.size() ? output_data[i] : nullptr));
  for (std::size_t i = 0; i < spec.inputs.size(); ++i) inputs_.push_back(&tensors_[i]);
  for (std::size_t i = 0; i < spec.outputs.size(); ++i)
    outputs_.push_back(&tensors_[spec.inputs.size() + i]);
  call_.struct_size = sizeof(bnscope_call);
  call_.abi_version = BNSCOPE_PLUGIN_ABI_VERSION;
  call_.op = spec.op.c_str();
  call_.dtype = abi_dtype(spec.t);
  call_.stats_dtype = abi_dtype(spec.u);
  call_.layout = spec.layout;
  call_.mode = spec.mode;
  call_.reserve_convention = spec.convention;
  call_.scale_after_normalization = spec.scale_after_normalization;
  call_.epsilon = spec.epsilon;
  call_.exponential_avg_factor = spec.exponential_avg_factor;
  call_.num_inputs = static_cast<std::int32_t>(inputs_.size());
  call_.num_outputs = static_cast<std::int32_t>(outputs_.size());
  call_.inputs = inputs_.data();
  call_.outputs = outputs_.data();
  call_.stream = stream;
  for (bnscope_tensor& t : tensors_) t.device = device;
  call_.threads = spec.threads;
}

}  // namespace bnscope
