#include "diff/cause_fix.h"

#include "ops/bn_math.h"
#include "tensor/layout.h"

namespace bnscope {

std::optional<Problem> problem_with_fix(const Problem& p, const Cause& cause, std::string* why) {
  const OpSpec* op = find_op(p.op);
  if (!op) {
    if (why) *why = "unknown op " + p.op;
    return std::nullopt;
  }
  Problem fixed = p;
  if (cause.code == "reserve-convention") {
    fixed.convention = p.convention == ReserveConvention::Variance ? ReserveConvention::InvStd
                                                                   : ReserveConvention::Variance;
    return fixed;
  }
  if (cause.code == "epsilon-clamped") {
    fixed.attrs[std::string(op->epsilon_attr())] = kCudnnMinEpsilon;
    return fixed;
  }
  if (cause.code == "half-overflow") {
    fixed.dtype = DType::F32;
    for (auto& [name, t] : fixed.inputs)
      if (t.dtype() == DType::F16) t = t.to(DType::F32);
    return fixed;
  }
  if (cause.code == "layout-swapped") {
    auto xi = p.inputs.find(std::string(op->data_input()));
    if (xi == p.inputs.end() || xi->second.rank() < 3) {
      if (why) *why = "the problem has no data input to reinterpret";
      return std::nullopt;
    }
    bool last = true;
    if (op->has_attr("data_format"))
      if (auto f = parse_data_format(attr_string(p, "data_format"))) last = is_channels_last(*f);
    const Shape declared = xi->second.shape();
    for (auto& [name, t] : fixed.inputs)
      if (t.shape() == declared) t = reinterpret_other_layout(t, last);
    return fixed;
  }
  if (why) *why = "no known change for cause '" + cause.code + "'";
  return std::nullopt;
}

}  // namespace bnscope
