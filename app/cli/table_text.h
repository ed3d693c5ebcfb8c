#pragma once
// How the CLI's comparison tables print numbers, alike in diff and sweep.

#include <cstdint>
#include <cstdio>
#include <string>

namespace bnscope::cli {

// Three significant digits: a table column, not a value to read back.
inline std::string num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3g", v);
  return b;
}

// ULP distances; the diff marks NaN on exactly one side with the largest count.
inline std::string ulps(std::uint64_t u) {
  return u == ~std::uint64_t{0} ? "NaN" : std::to_string(u);
}

}  // namespace bnscope::cli
