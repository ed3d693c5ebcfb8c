#include "analysis/health.h"

#include <cmath>

namespace bnscope {

std::int64_t count_non_finite(const Tensor& t) {
  return visit_dtype(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* d = static_cast<const T*>(t.raw());
    std::int64_t n = 0;
    for (std::int64_t i = 0; i < t.numel(); ++i) n += !std::isfinite(to_float(d[i]));
    return n;
  });
}

void note_input_health(Prepared& p) {
  for (std::size_t i = 0; i < p.inputs.size(); ++i) {
    const std::int64_t n = count_non_finite(p.inputs[i]);
    if (n)
      p.notes.push_back({NoteKind::Warning, "non-finite-input",
                         std::string(p.op->inputs[i].name) + " holds " + std::to_string(n) +
                             " NaN/Inf value(s); every channel they touch is poisoned",
                         std::string(p.op->inputs[i].name), -1});
  }
  // tf.nn.fused_batch_norm clamps epsilon to 1.001e-5 "as required by cuDNN"; raw ops do not.
  if (p.op->family == OpFamily::Fused && p.epsilon < 1.001e-5)
    p.notes.push_back({NoteKind::Warning, "epsilon-below-cudnn-min",
                       "epsilon " + std::to_string(p.epsilon) +
                           " is below 1.001e-5: tf.nn.fused_batch_norm would clamp it and older "
                           "cuDNN rejects it, so CPU and GPU results may differ",
                       "epsilon", -1});
}

void note_output_health(Result& r) {
  for (OutputTensor& o : r.outputs) {
    if (!o.defined) continue;
    o.non_finite = count_non_finite(o.tensor);
    if (o.non_finite)
      r.notes.push_back({NoteKind::Warning, "non-finite-output",
                         o.name + " holds " + std::to_string(o.non_finite) + " NaN/Inf value(s)",
                         o.name, -1});
  }
}

}  // namespace bnscope
