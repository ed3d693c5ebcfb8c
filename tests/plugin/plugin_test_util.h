#pragma once
// Paths of the plugins tests/plugin/CMakeLists.txt builds, and the helper program the tests use.

#include <cstdlib>
#include <string>

#include "ops/problem.h"
#include "ops/sample.h"

namespace bnscope::test {

// The helper program built beside the tests, not one found on PATH.
inline void use_built_plugin_host() {
  ::setenv("BNSCOPE_PLUGIN_HOST", BNSCOPE_PLUGIN_HOST_PATH, 1);
}

inline std::string plugin_path(const std::string& target) {
  use_built_plugin_host();
  return std::string(BNSCOPE_TEST_PLUGIN_DIR) + "/" + target + ".so";
}

// A float32 NHWC training problem the misbehaving plugin takes; epsilon picks its misbehaviour
// (misbehaving_plugin.c).
inline Problem misbehaving_problem(double epsilon) {
  SampleSpec spec;
  spec.shape = {2, 3, 4, 5};
  Problem p = random_problem(spec);
  p.attrs["epsilon"] = epsilon;
  return p;
}

inline constexpr double kEpsSegv = 0.25, kEpsAbort = 0.125, kEpsHang = 0.0625,
                        kEpsPastEnd = 0.03125, kEpsBeforeStart = 0.015625,
                        kEpsIntoInput = 0.0078125, kEpsError = 0.00390625,
                        kEpsUnsupported = 0.001953125, kEpsFine = 0.001;

}  // namespace bnscope::test
