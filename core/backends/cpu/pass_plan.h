#pragma once
// The pass structure the cpu backend picks for a problem (passes.h explains each), decided in
// one place: the ops run the structure pass_structure() returns and each pass reports itself as
// a phase named here, so a profile shows the passes the planner chose.

#include <string>
#include <vector>

#include "backends/cpu/planner.h"
#include "ops/prepared.h"

namespace bnscope::cpu {

enum class PassStructure {
  Write,       // forward in inference, BatchNormWithGlobalNormalization: one write pass
  Statistics,  // forward in training: mean pass, deviation pass, write pass
  TwoPass,     // training grads: reduce pass, then write pass (grad_two_pass.cpp)
  Planes,      // channels-first training grads, plane by plane while cache-hot (grad_planes.cpp)
  Single,      // freeze-mode and global grads: sums and dx in one sweep (passes.h: single_pass)
};

// Phase names, "pass:" so the profiler and the timeline tell them from device phases.
inline constexpr const char* kPassMean = "pass:mean";          // Σx
inline constexpr const char* kPassVariance = "pass:variance";  // Σ(x-mean), Σ(x-mean)²
inline constexpr const char* kPassReduce = "pass:reduce";      // Σdy, Σdy·(x-mean)
inline constexpr const char* kPassWrite = "pass:write";        // dx or y from per-channel coefs
inline constexpr const char* kPassPlanes = "pass:planes";      // reduce + write per plane
inline constexpr const char* kPassFused = "pass:fused";        // sums and dx in one sweep

// threads: the resolved count the run uses (it decides whether planes keep every thread busy).
PassStructure pass_structure(const Host& host, const Prepared& p, int threads);
std::vector<std::string> pass_names(PassStructure s);

}  // namespace bnscope::cpu
