#pragma once
// For tests that run code on every Highway target the build has and the CPU runs.

#include <hwy/targets.h>

namespace bnscope {

// Gives the target choice back to the CPU when a test that picked targets ends.
struct TargetGuard {
  ~TargetGuard() { hwy::SetSupportedTargetsForTest(0); }
};

}  // namespace bnscope
