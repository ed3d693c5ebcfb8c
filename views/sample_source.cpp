#include "sample_source.h"

namespace bnscope {

Problem generate_problem(const SampleSpec& spec) {
  // Core makes the reserve spaces from the data's moments, as the forward op saves them.
  return random_problem(spec);
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
