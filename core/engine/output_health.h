#pragma once
// The health of a run's outputs: each defined output's NaN/Inf count and a note for those that
// hold any. The engine ends every run with it.

#include <cstdint>
#include <functional>
#include <optional>

#include "ops/result.h"

namespace bnscope {

// count: where given, asked first for each output's count (nullopt: counted here).
using OutputCount = std::function<std::optional<std::int64_t>(const OutputTensor&)>;
void note_output_health(Result& r, const OutputCount& count = {});

}  // namespace bnscope
