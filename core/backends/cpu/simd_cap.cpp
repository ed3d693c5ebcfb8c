// BNSCOPE_SIMD: the dispatch capped at a narrower vector target for the whole process (simd.h);
// whether this CPU rounds to bfloat16 by instruction.

#include <hwy/targets.h>
#include <strings.h>

#include <cstdlib>
#include <string>

#include "backends/cpu/simd.h"
#include "tensor/error.h"

namespace bnscope::cpu::simd {

namespace {

constexpr const char* kVariable = "BNSCOPE_SIMD";

// Applies the variable's cap; returns the error, empty when it is applied or not set.
std::string cap_from_environment() {
  const char* env = std::getenv(kVariable);
  if (!env || !*env) return "";
  std::string names;
  for (const std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
    if (strcasecmp(env, hwy::TargetName(target)) == 0) {
      // Highway numbers better targets with lower bits: every bit below this one goes.
      hwy::DisableTargets(target - 1);
      return "";
    }
    names += (names.empty() ? "" : ", ") + std::string(hwy::TargetName(target));
  }
  return std::string(kVariable) + " expects a vector target this build has and this CPU runs (" +
         names + "), got '" + clip_for_message(env) + "'";
}

}  // namespace

#if defined(__x86_64__) || defined(__i386__)
bool bf16_instruction = __builtin_cpu_supports("avx512bf16");
#else
bool bf16_instruction = false;
#endif

void apply_target_cap() {
  // Once per process: the dispatch tables are process-wide, and a cap lifted halfway through
  // would mix two targets' timings in one profile.
  static const std::string error = cap_from_environment();
  if (!error.empty()) fail(error);
}

}  // namespace bnscope::cpu::simd
