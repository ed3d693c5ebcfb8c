#include "op_switch.h"

#include <algorithm>
#include <cmath>

#include "ops/moments.h"
#include "sample_source.h"
#include "tensor/error.h"
#include "tensor/layout.h"

namespace bnscope {

namespace {

// The other per-channel input (offset or beta): per-channel, and none of scale, mean, variance.
std::string_view offset_input(const OpSpec& op) {
  for (std::string_view n : op.inputs_with_role(InputRole::PerChannel))
    if (n != op.scale_input && n != op.mean_input && n != op.variance_input) return n;
  return {};
}

// The input of `to` that means what `name` means to `from` (the data, the upstream gradient,
// scale, mean, variance, offset), as the catalog names them; empty when none.
std::string counterpart(const OpSpec& from, std::string_view name, const OpSpec& to) {
  const std::pair<std::string_view, std::string_view> meanings[] = {
      {from.data_input(), to.data_input()},     {from.gradient_input(), to.gradient_input()},
      {from.scale_input, to.scale_input},       {from.mean_input, to.mean_input},
      {from.variance_input, to.variance_input}, {offset_input(from), offset_input(to)},
  };
  for (const auto& [a, b] : meanings)
    if (!a.empty() && a == name) return std::string(b);
  return {};
}

bool channels_last_of(const Problem& p, const OpSpec& op) {
  if (!op.has_attr("data_format")) return true;  // the global-normalization ops are NHWC
  return is_channels_last(
      parse_data_format(attr_string(p, "data_format")).value_or(DataFormat::NHWC));
}

Tensor with_dtype(const Tensor& t, DType d) {
  if (t.dtype() == d) return t;
  const std::vector<double> v = t.to_doubles();
  return Tensor::from_doubles(d, t.shape(), v);
}

}  // namespace

OpSwitch switch_op(const Problem& from, const std::string& op, std::uint64_t seed) {
  const OpSpec* to = find_op(op);
  const OpSpec* was = find_op(from.op);
  if (!to) fail("unknown op '" + op + "'");
  OpSwitch s;
  Problem& p = s.problem;
  p.op = op;
  p.dtype = from.dtype;
  p.convention = from.convention;
  p.strict = from.strict;

  // Attrs: the same name, or the same role under another name.
  for (const AttrSpec& a : to->attrs) {
    const std::string name(a.name);
    if (auto it = from.attrs.find(name); it != from.attrs.end()) {
      p.attrs[name] = it->second;
      continue;
    }
    if (was && a.name == to->epsilon_attr())
      if (auto it = from.attrs.find(std::string(was->epsilon_attr())); it != from.attrs.end()) {
        p.attrs[name] = it->second;
        s.carried.push_back(it->first + " -> " + name);
      }
  }
  const bool from_last = was ? channels_last_of(from, *was) : true;
  const bool to_last = channels_last_of(p, *to);
  const bool training =
      was && was->has_attr("is_training") ? attr_bool(from, "is_training") : false;
  // Saved statistics in the inv_std convention are 1/sqrt(var + eps); a global op's v is var.
  const bool inv_std_stats = was && was->family == OpFamily::Fused && training &&
                             from.convention == ReserveConvention::InvStd;
  if (was && to->family == OpFamily::Fused && was->family == OpFamily::GlobalNorm &&
      to->has_attr("is_training") && !p.attrs.count("is_training")) {
    // m and v are given statistics, as in the fused ops' inference mode.
    p.attrs["is_training"] = false;
    s.defaulted.push_back("is_training = false (m and v are given statistics)");
  }

  // Inputs: the same name, or the same role under another name.
  DType data_dtype = from.dtype.value_or(DType::F32);
  for (const ArgSpec& a : to->inputs) {
    const std::string name(a.name);
    std::string source;
    if (from.inputs.count(name)) {
      source = name;
    } else if (was) {
      for (const auto& [other, tensor] : from.inputs)
        if (counterpart(*was, other, *to) == name) {
          source = other;
          break;
        }
    }
    if (source.empty()) continue;
    Tensor t = from.inputs.at(source);
    if (t.rank() >= 2 && from_last != to_last)
      t = to_last ? to_channels_last(t) : to_channels_first(t);
    if (a.type == ArgType::T && t.rank() >= 2) data_dtype = from.dtype.value_or(t.dtype());
    bool converted = false;
    if (source != name && was && source == was->variance_input && inv_std_stats &&
        to->family == OpFamily::GlobalNorm) {
      const double eps = attr_float(from, was->epsilon_attr());
      std::vector<double> v = t.to_doubles();
      for (double& e : v) e = e > 0 ? std::max(0.0, 1.0 / (e * e) - eps) : 0.0;
      t = Tensor::from_doubles(t.dtype(), t.shape(), v);
      converted = true;
    }
    p.inputs[name] = std::move(t);
    if (source != name)
      s.carried.push_back(source + " -> " + name +
                          (converted ? " (from 1/sqrt(variance + epsilon) to the variance)" : ""));
  }
  // The new op's types: per-channel inputs follow T or U as the catalog says.
  for (const ArgSpec& a : to->inputs)
    if (auto it = p.inputs.find(std::string(a.name));
        it != p.inputs.end() && it->second.rank() == 1)
      it->second = with_dtype(it->second, resolve_arg_type(*to, a.type, data_dtype));

  // Required attrs still unset get a stated value rather than a misleading blank.
  for (const AttrSpec& a : to->attrs) {
    const std::string name(a.name);
    if (!a.required() || p.attrs.count(name)) continue;
    if (a.type == AttrType::Bool) {
      p.attrs[name] = true;
      s.defaulted.push_back(name + " = true");
    } else if (a.type == AttrType::Float) {
      p.attrs[name] = 0.001;
      s.defaulted.push_back(name + " = 0.001");
    }
  }

  // Statistics that could not be carried: the moments of the carried data, so the problem stays
  // consistent (variance stored as the convention says).
  const std::string data(to->data_input());
  if (p.inputs.count(data) && p.inputs.at(data).rank() >= 2) {
    const std::string mean_name(to->mean_input), var_name(to->variance_input);
    if (!mean_name.empty() && !var_name.empty() && !p.inputs.count(mean_name) &&
        !p.inputs.count(var_name)) {
      const Tensor& x = p.inputs.at(data);
      const ChannelView view = channel_view(x.shape(), to_last);
      const ChannelMoments m = channel_moments_biased(x.to_doubles(), view);
      std::vector<double> var = m.biased_variance;
      const bool inv_std = to->family == OpFamily::Fused && to->is_grad &&
                           attr_bool(p, "is_training") && p.convention == ReserveConvention::InvStd;
      if (inv_std)
        for (double& e : var) e = 1.0 / std::sqrt(e + attr_float(p, to->epsilon_attr()));
      const Shape c{view.channels};
      const DType u = resolve_arg_type(
          *to, to->inputs[static_cast<std::size_t>(to->input_index(mean_name))].type, data_dtype);
      p.inputs[mean_name] = Tensor::from_doubles(u, c, m.mean);
      p.inputs[var_name] = Tensor::from_doubles(u, c, var);
      s.generated.push_back(mean_name + " (moments of " + data + ")");
      s.generated.push_back(var_name + " (moments of " + data + ")");
    }
  }

  // Inputs that could not be carried: generated to match the carried data.
  bool missing = false;
  for (const ArgSpec& a : to->inputs) missing |= !p.inputs.count(std::string(a.name));
  if (missing) {
    Problem fresh = generate_problem(spec_like(p, seed));
    for (const ArgSpec& a : to->inputs) {
      const std::string name(a.name);
      if (p.inputs.count(name) || !fresh.inputs.count(name)) continue;
      p.inputs[name] = fresh.inputs.at(name);
      s.generated.push_back(name);
    }
  }
  return s;
}

}  // namespace bnscope
