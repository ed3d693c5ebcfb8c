#include "analysis/causes/half_accumulation.h"

#include "ops/bn_math.h"
#include "ops/prepared.h"
#include "tensor/non_finite.h"

namespace bnscope::causes {

namespace {

float round_to(DType t, float v) {
  return t == DType::BF16 ? bf16_bits_to_float(float_to_bf16_bits(v))
                          : half_bits_to_float(float_to_half_bits(v));
}

void put(std::vector<OutputTensor>& outs, const std::string& name, Tensor t) {
  OutputTensor o{name, std::move(t)};
  o.non_finite = count_non_finite(o.tensor);
  for (OutputTensor& existing : outs)
    if (existing.name == name) {
      existing = std::move(o);
      return;
    }
  outs.push_back(std::move(o));
}

}  // namespace

bool accumulation_can_be_half(const Problem& problem) {
  const OpSpec* op = find_op(problem.op);
  if (!op || op->family != OpFamily::Fused || !op->is_grad) return false;
  const auto x = problem.inputs.find(std::string(op->data_input()));
  const DType t = problem.dtype               ? *problem.dtype
                  : x != problem.inputs.end() ? x->second.dtype()
                                              : DType::F32;
  return t == DType::F16 || t == DType::BF16;
}

void half_accumulated_outputs(const Problem& problem, std::vector<OutputTensor>& outs,
                              const Prepared* earlier) {
  const Prepared p = prepare(problem, earlier);
  if (p.empty()) return;  // no sums: nothing differs
  const ChannelView& v = p.view;
  const std::int64_t C = v.channels;
  const auto uc = [](std::int64_t c) { return static_cast<std::size_t>(c); };
  const Tensor& x = p.in("x");
  const Tensor& dy = p.in("y_backprop");
  const Tensor& gamma = p.in("scale");
  const Tensor& mu = p.in("reserve_space_1");
  const Tensor& rs2 = p.in("reserve_space_2");

  std::vector<float> mean(uc(C)), sum_dy(uc(C), 0.0f), sum_dy_xc(uc(C), 0.0f);
  for (std::int64_t c = 0; c < C; ++c) mean[uc(c)] = static_cast<float>(mu.get(c));
  // Memory order: each channel's sums still see their terms in (o, i) order, one chain each.
  for (std::int64_t o = 0; o < v.outer; ++o)
    for (std::int64_t c = 0; c < C; ++c)
      for (std::int64_t i = 0; i < v.inner; ++i) {
        const std::int64_t j = v.index(o, c, i);
        const auto g = static_cast<float>(dy.get(j));
        const float term = g * (static_cast<float>(x.get(j)) - mean[uc(c)]);
        sum_dy[uc(c)] = round_to(p.t, sum_dy[uc(c)] + g);
        sum_dy_xc[uc(c)] = round_to(p.t, sum_dy_xc[uc(c)] + term);
      }

  const double m = static_cast<double>(v.per_channel());
  std::vector<double> k(uc(C)), gk(uc(C));
  Tensor dscale(p.u, {C}), doffset(p.u, {C});
  for (std::int64_t c = 0; c < C; ++c) {
    k[uc(c)] = p.is_training ? reserve_inv_std(rs2.get(c), p.epsilon, p.reserve_is_inv_std())
                             : inv_std(rs2.get(c), p.epsilon);
    gk[uc(c)] = gamma.get(c) * k[uc(c)];
    dscale.set(c, k[uc(c)] * sum_dy_xc[uc(c)]);
    doffset.set(c, sum_dy[uc(c)]);
  }
  Tensor dx(p.t, x.shape());
  for (std::int64_t o = 0; o < v.outer; ++o)
    for (std::int64_t c = 0; c < C; ++c)
      for (std::int64_t i = 0; i < v.inner; ++i) {
        const std::int64_t j = v.index(o, c, i);
        const std::size_t cc = uc(c);
        const double g = dy.get(j);
        dx.set(j, p.is_training
                      ? gk[cc] * (g - sum_dy[cc] / m -
                                  (x.get(j) - mu.get(c)) * k[cc] * k[cc] * sum_dy_xc[cc] / m)
                      : gk[cc] * g);
      }
  put(outs, "x_backprop", std::move(dx));
  put(outs, "scale_backprop", std::move(dscale));
  put(outs, "offset_backprop", std::move(doffset));
}

}  // namespace bnscope::causes
