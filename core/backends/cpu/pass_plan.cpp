#include "backends/cpu/pass_plan.h"

#include <utility>

#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/passes.h"
#include "tensor/parallel.h"

namespace bnscope::cpu {

PassStructure pass_structure(const Host& host, const Prepared& p, int threads) {
  const OpSpec& op = *p.op;
  if (!op.is_grad)
    return op.family == OpFamily::Fused && p.is_training ? PassStructure::Statistics
                                                         : PassStructure::Write;
  if (op.family == OpFamily::GlobalNorm || !p.is_training) return PassStructure::Single;
  return planes_fit(host, make_geometry(p.view), dtype_size(p.t), threads) ? PassStructure::Planes
                                                                           : PassStructure::TwoPass;
}

std::vector<std::string> pass_names(PassStructure s) {
  switch (s) {
    case PassStructure::Write:
      return {kPassWrite};
    case PassStructure::Statistics:
      return {kPassMean, kPassVariance, kPassWrite};
    case PassStructure::TwoPass:
      return {kPassReduce, kPassWrite};
    case PassStructure::Planes:
      return {kPassPlanes};
    case PassStructure::Single:
      return {kPassFused};
  }
  return {};
}

}  // namespace bnscope::cpu

namespace bnscope {

std::string_view cpu_pass_description(std::string_view phase) {
  using namespace cpu;
  const std::pair<const char*, std::string_view> descriptions[] = {
      {kPassMean, "reduce pass: sum of x per channel, for the batch mean"},
      {kPassVariance,
       "reduce pass: sums of (x - mean) and its square per channel, for the variance"},
      {kPassReduce, "reduce pass: sums of dy and dy*(x - mean) per channel (reads x and dy)"},
      {kPassWrite, "write pass: each output element from per-channel coefficients"},
      {kPassPlanes,
       "one sweep, channel plane by plane: reduce a plane, then write its dx while it is "
       "cache-hot"},
      {kPassFused, "one sweep: the per-channel sums and dx together (dx needs no reduction)"},
  };
  for (const auto& [name, text] : descriptions)
    if (phase == name) return text;
  return {};
}

int cpu_pass_tensors(std::string_view phase, const OpSpec& op) {
  using namespace cpu;
  if (phase == kPassMean || phase == kPassVariance) return 1;  // x
  if (phase == kPassReduce) return 2;                          // x, dy
  if (phase == kPassWrite) return op.is_grad ? 3 : 2;          // x (dy) read, dx (y) written
  if (phase == kPassPlanes || phase == kPassFused) return 3;   // x, dy, dx
  return 0;
}

std::vector<std::string> cpu_pass_plan(const Prepared& p, int threads) {
  if (p.empty()) return {};  // the engine answers empty inputs without running the backend
  return cpu::pass_names(cpu::pass_structure(cpu::this_host(), p, resolve_threads(threads)));
}

}  // namespace bnscope
