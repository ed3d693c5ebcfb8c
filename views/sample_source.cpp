#include "sample_source.h"

#include <cmath>

#include "ops/moments.h"
#include "tensor/error.h"

namespace bnscope {

namespace {

// Batch mean and biased variance of x per channel, as the CPU forward op saves them, from
// core's one moments function (two passes, as TensorFlow's kernel).
void fill_reserve_locally(Problem& p, const SampleSpec& spec) {
  const Tensor& x = p.inputs.at("x");
  const ChannelView v = channel_view(x.shape(), is_channels_last(spec.format));
  const DType u = resolve_arg_type(*find_op(spec.op), ArgType::U, spec.dtype);
  Tensor mean(u, {v.channels}), var(u, {v.channels});
  const ChannelMoments m = channel_moments_biased(x.to_doubles(), v);
  const double eps = attr_float(p, "epsilon");
  for (std::int64_t c = 0; c < v.channels; ++c) {
    const auto k = static_cast<std::size_t>(c);
    const double var_b = m.biased_variance[k];
    mean.set(c, m.mean[k]);
    var.set(c, spec.convention == ReserveConvention::InvStd && spec.is_training
                   ? 1.0 / std::sqrt(var_b + eps)
                   : var_b);
  }
  p.inputs["reserve_space_1"] = mean;
  p.inputs["reserve_space_2"] = var;
  if (find_op(spec.op)->input_index("reserve_space_3") >= 0)
    p.inputs["reserve_space_3"] = Tensor(DType::F32, {});
}

}  // namespace

Problem generate_problem(const SampleSpec& spec) {
  try {
    return random_problem(spec);
  } catch (const Error& e) {
    const OpSpec* op = find_op(spec.op);
    if (!op || !op->is_grad || op->family != OpFamily::Fused ||
        e.code() == ErrorCode::InvalidArgument)
      throw;
  }
  // The forward op's backend is not available: build the same inputs without it.
  SampleSpec fwd = spec;
  fwd.op = std::string(find_op(spec.op)->counterpart);
  Problem f = random_problem(fwd);
  SampleSpec dy = fwd;
  dy.seed = spec.seed + 0x51ed;
  Problem g = random_problem(dy);
  Problem p;
  p.op = spec.op;
  p.dtype = spec.dtype;
  p.convention = spec.convention;
  p.attrs = f.attrs;
  p.attrs.erase("exponential_avg_factor");
  p.inputs["x"] = f.inputs.at("x");
  p.inputs["scale"] = f.inputs.at("scale");
  p.inputs["y_backprop"] = g.inputs.at("x");
  fill_reserve_locally(p, spec);
  return p;
}

SampleSpec spec_like(const Problem& p, std::uint64_t seed) {
  SampleSpec s;
  s.op = p.op;
  s.seed = seed;
  s.convention = p.convention;
  const OpSpec* op = find_op(p.op);
  if (!op) return s;
  const bool global = op->family == OpFamily::GlobalNorm;
  if (!global) {
    if (auto f = parse_data_format(attr_string(p, "data_format"))) s.format = *f;
    s.is_training = attr_bool(p, "is_training");
  }
  auto x = p.inputs.find(global ? "t" : "x");
  if (x != p.inputs.end() && x->second.rank() >= 2) {
    s.dtype = p.dtype.value_or(x->second.dtype());
    Shape sh = x->second.shape();
    if (!is_channels_last(s.format)) {  // physical N,C,spatial... to logical N,spatial...,C
      Shape l{sh.front()};
      l.insert(l.end(), sh.begin() + 2, sh.end());
      l.push_back(sh[1]);
      sh = l;
    }
    s.shape = sh;
  } else if (p.dtype) {
    s.dtype = *p.dtype;
  }
  if (global) s.format = DataFormat::NHWC;
  return s;
}

}  // namespace bnscope
