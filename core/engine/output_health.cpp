#include "engine/output_health.h"

#include "tensor/non_finite.h"

namespace bnscope {

void note_output_health(Result& r, const OutputCount& count) {
  for (OutputTensor& o : r.outputs) {
    if (!o.defined) continue;
    const std::optional<std::int64_t> known = count ? count(o) : std::nullopt;
    o.non_finite = known ? *known : count_non_finite(o.tensor);
    if (o.non_finite)
      r.notes.push_back({NoteKind::Warning, "non-finite-output",
                         o.name + " holds " + std::to_string(o.non_finite) + " NaN/Inf value(s)",
                         o.name, -1});
  }
}

}  // namespace bnscope
