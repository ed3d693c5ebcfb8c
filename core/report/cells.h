#pragma once
// Text forms of one table cell, shared by the report and sweep writers.

#include <cstdint>
#include <string>

namespace bnscope {

// RFC 4180 quoting where needed.
inline std::string csv_cell(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// An ULP distance; the all-ones value is the comparison's mark for a NaN on one side only.
inline std::string ulp_text(std::uint64_t u) {
  return u == ~std::uint64_t{0} ? "NaN" : std::to_string(u);
}

}  // namespace bnscope
