#include "analysis/causes/fixes.h"

#include <cmath>

#include "analysis/causes/channels.h"
#include "ops/bn_math.h"
#include "ops/moments.h"
#include "tensor/error.h"

namespace bnscope {

Tensor reinterpret_other_layout(const Tensor& t, bool declared_channels_last) {
  if (t.rank() < 3) return t;
  const Tensor bytes = t.reshaped(channel_axis_moved(t.shape(), declared_channels_last));
  return declared_channels_last ? to_channels_last(bytes) : to_channels_first(bytes);
}

namespace causes {

namespace {

Tensor& input(Problem& p, std::string_view name) {
  auto it = p.inputs.find(std::string(name));
  if (name.empty() || it == p.inputs.end())
    fail("the problem has no input " + std::string(name.empty() ? "for this fix" : name));
  return it->second;
}

double epsilon_of(const Problem& p, const OpSpec& op) {
  return attr_float(p, op.epsilon_attr());
}

bool reserve_holds_inv_std(const Problem& p, const OpSpec& op) {
  return op.is_grad && op.family == OpFamily::Fused && attr_bool(p, "is_training") &&
         p.convention == ReserveConvention::InvStd;
}

// Rewrites every value of t through f (in float64, rounded once to t's dtype) into a tensor of
// its own, element by element: a layer's gradient as doubles would be twice its size again.
template <class F>
void map_values(Tensor& t, F f) {
  Tensor out = Tensor::uninitialized(t.dtype(), t.shape());
  for (std::int64_t i = 0; i < t.numel(); ++i) out.set(i, f(t.get(i)));
  t = std::move(out);
}

void set_values(Tensor& t, const std::vector<double>& values) {
  t = Tensor::from_doubles(t.dtype(), t.shape(), values);
}

// The per-channel values of a fitted step on the channels the problem holds.
std::vector<double> on_channels(const std::vector<double>& all,
                                const std::vector<std::int64_t>& channels) {
  if (channels.empty()) return all;
  std::vector<double> out;
  for (std::int64_t c : channels) out.push_back(all.at(static_cast<std::size_t>(c)));
  return out;
}

}  // namespace

BatchMoments batch_moments(const Problem& p, const OpSpec& op) {
  const Tensor& x = p.inputs.at(std::string(op.data_input()));
  const ChannelView v = channel_view(x.shape(), declared_channels_last(p, op));
  ChannelMoments m = channel_moments_biased(x, v, {}, 1);
  return {std::move(m.mean), std::move(m.biased_variance)};
}

void fix_convention(Problem& p, const OpSpec&, const FixStep&, const std::vector<std::int64_t>&) {
  p.convention = p.convention == ReserveConvention::Variance ? ReserveConvention::InvStd
                                                             : ReserveConvention::Variance;
}

void fix_inverse_variance(Problem& p, const OpSpec& op, const FixStep&,
                          const std::vector<std::int64_t>&) {
  const double eps = epsilon_of(p, op);
  const bool holds_inv_std = reserve_holds_inv_std(p, op);
  map_values(input(p, op.variance_input),
             [&](double r) { return holds_inv_std ? std::sqrt(r) : 1.0 / r - eps; });
}

void fix_layout(Problem& p, const OpSpec& op, const FixStep&, const std::vector<std::int64_t>&) {
  const Shape declared = input(p, op.data_input()).shape();
  if (declared.size() < 3) fail("the data input has no spatial dimensions to reinterpret");
  const bool last = declared_channels_last(p, op);
  if (!op.has_attr("data_format")) {  // one layout only: the bytes are moved into it
    for (auto& [name, t] : p.inputs)
      if (t.shape() == declared) t = reinterpret_other_layout(t, last);
    return;
  }
  // The same bytes declared in the other layout: no copy of a real layer's data, and the outputs
  // come out in the bytes' own layout, the reference's.
  const Shape other = channel_axis_moved(declared, last);
  for (auto& [name, t] : p.inputs)
    if (t.shape() == declared) t = t.reshaped(other);
  p.attrs["data_format"] =
      std::string(data_format_name(data_format_for(!last, static_cast<int>(declared.size()))));
}

void fix_epsilon(Problem& p, const OpSpec& op, const FixStep& s, const std::vector<std::int64_t>&) {
  p.attrs[std::string(op.epsilon_attr())] = s.value;
}

void fix_epsilon_clamped(Problem& p, const OpSpec& op, const FixStep&,
                         const std::vector<std::int64_t>&) {
  p.attrs[std::string(op.epsilon_attr())] = kCudnnMinEpsilon;
}

void fix_widen(Problem& p, const OpSpec&, const FixStep&, const std::vector<std::int64_t>&) {
  p.dtype = DType::F32;
  for (auto& [name, t] : p.inputs)
    if (t.dtype() == DType::F16 || t.dtype() == DType::BF16) t = t.to(DType::F32);
}

void fix_bessel(Problem& p, const OpSpec& op, const FixStep& s, const std::vector<std::int64_t>&) {
  const double eps = epsilon_of(p, op);
  const bool holds_inv_std = reserve_holds_inv_std(p, op);
  map_values(input(p, op.variance_input), [&](double v) {
    return holds_inv_std ? inv_std(variance_from_inv_std(v, eps) * s.value, eps) : v * s.value;
  });
}

void fix_batch_statistics(Problem& p, const OpSpec& op, const FixStep&,
                          const std::vector<std::int64_t>&) {
  const BatchMoments m = batch_moments(p, op);
  const double eps = epsilon_of(p, op);
  std::vector<double> var = m.variance;
  if (reserve_holds_inv_std(p, op))
    for (double& v : var) v = inv_std(v, eps);
  set_values(input(p, op.mean_input), m.mean);
  set_values(input(p, op.variance_input), var);
}

void fix_avg_factor(Problem& p, const OpSpec&, const FixStep& s, const std::vector<std::int64_t>&) {
  p.attrs["exponential_avg_factor"] = s.value;
}

void fix_mode(Problem& p, const OpSpec&, const FixStep&, const std::vector<std::int64_t>&) {
  p.attrs["is_training"] = !attr_bool(p, "is_training");
}

void fix_scale_missing(Problem& p, const OpSpec& op, const FixStep&,
                       const std::vector<std::int64_t>&) {
  map_values(input(p, op.scale_input), [](double) { return 1.0; });
}

void fix_scale_ignored(Problem& p, const OpSpec& op, const FixStep& s,
                       const std::vector<std::int64_t>& channels) {
  set_values(input(p, op.scale_input), on_channels(s.per_channel, channels));
}

void fix_precision(Problem& p, const OpSpec& op, const FixStep& s,
                   const std::vector<std::int64_t>&) {
  const auto colon = s.variant.find(':');
  const std::string which = s.variant.substr(0, colon);
  const DType narrow = s.variant.substr(colon + 1) == "bf16" ? DType::BF16 : DType::F16;
  std::vector<std::string_view> names;
  if (which == "x" || which == "both") names.push_back(op.data_input());
  if ((which == "dy" || which == "both") && !op.gradient_input().empty())
    names.push_back(op.gradient_input());
  for (std::string_view n : names) {
    Tensor& t = input(p, n);
    t = t.to(narrow).to(t.dtype());
  }
}

Tensor scaled_by(const Tensor& t, double k) {
  if (t.dtype() != DType::F32) {
    Tensor out = t;
    map_values(out, [k](double v) { return v * k; });
    return out;
  }
  // The common case without the per-element dtype dispatch; the same roundings as set().
  Tensor out = Tensor::uninitialized(DType::F32, t.shape());
  const float* src = t.data<float>();
  float* dst = out.data<float>();
  for (std::int64_t i = 0; i < t.numel(); ++i)
    dst[i] = static_cast<float>(static_cast<double>(src[i]) * k);
  return out;
}

void fix_gradient_scale(Problem& p, const OpSpec& op, const FixStep& s,
                        const std::vector<std::int64_t>&) {
  Tensor& dy = input(p, op.gradient_input());
  dy = scaled_by(dy, s.value);
}

void fix_permutation(Problem& p, const OpSpec& op, const FixStep& s,
                     const std::vector<std::int64_t>& channels) {
  if (!channels.empty()) fail("a channel order applies to the whole problem only");
  const Tensor& x = input(p, op.data_input());
  const bool last = declared_channels_last(p, op);
  const ChannelView v = channel_view(x.shape(), last);
  if (static_cast<std::int64_t>(s.permutation.size()) != v.channels)
    fail("the channel order has " + std::to_string(s.permutation.size()) +
         " channels, the problem " + std::to_string(v.channels));
  for (auto& [name, t] : p.inputs) t = take_channels(t, v, last, s.permutation);
}

}  // namespace causes
}  // namespace bnscope
