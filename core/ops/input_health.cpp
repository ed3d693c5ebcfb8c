#include "ops/input_health.h"

#include <charconv>
#include <string>

#include "ops/bn_math.h"
#include "ops/reserve_check.h"
#include "tensor/non_finite.h"

namespace bnscope {

namespace {

// The shortest text that reads back as the same float: a tiny epsilon such as 1e-45 in full.
std::string shortest_float_text(float v) {
  char buf[32];
  return std::string(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

std::string shortest_double_text(double v) {
  char buf[32];
  return std::string(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

// The reader's count where it counted the values as it read them, else earlier's count of the
// same buffer, else a pass over the tensor (values made or edited in memory).
std::int64_t known_or_counted(const Tensor& t, const Prepared* earlier) {
  if (t.known_non_finite() >= 0) return t.known_non_finite();
  if (earlier)
    for (std::size_t j = 0; j < earlier->inputs.size() && j < earlier->non_finite.size(); ++j) {
      const Tensor& e = earlier->inputs[j];
      if (e.shares_storage_with(t) && e.dtype() == t.dtype() && e.numel() == t.numel())
        return earlier->non_finite[j];
    }
  return count_non_finite(t);
}

}  // namespace

void note_input_health(Prepared& p, const Prepared* earlier) {
  p.non_finite.assign(p.inputs.size(), 0);
  for (std::size_t i = 0; i < p.inputs.size(); ++i) {
    const std::int64_t n = known_or_counted(p.inputs[i], earlier);
    p.non_finite[i] = n;
    if (n)
      p.notes.push_back({NoteKind::Warning, "non-finite-input",
                         std::string(p.op->inputs[i].name) + " holds " + std::to_string(n) +
                             " NaN/Inf value(s); every channel they touch is poisoned",
                         std::string(p.op->inputs[i].name), -1});
  }
  // tf.nn.fused_batch_norm clamps epsilon "as required by cuDNN"; raw ops do not.
  if (p.op->family == OpFamily::Fused && below_cudnn_min_epsilon(p.epsilon))
    p.notes.push_back({NoteKind::Warning, "epsilon-below-cudnn-min",
                       "epsilon " + shortest_float_text(static_cast<float>(p.epsilon)) +
                           " is below " + shortest_double_text(kCudnnMinEpsilon) +
                           ": tf.nn.fused_batch_norm would clamp it and older cuDNN rejects it, so "
                           "CPU and GPU results may differ",
                       "epsilon", -1});
}

void attach_input_notes(Prepared& p, const Prepared* earlier) {
  note_input_health(p, earlier);
  for (Note& n : check_reserve_spaces(p, earlier)) p.notes.push_back(std::move(n));
}

}  // namespace bnscope
