#include "io/json_text.h"

#include <charconv>
#include <cmath>

namespace bnscope {

void append_json_string(std::string& out, std::string_view s, const JsonFlavor& flavor) {
  out += '"';
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20 || (flavor.html_safe && (c == '<' || c == '>' || c == '&'))) {
          static constexpr char kHex[] = "0123456789abcdef";
          out += "\\u00";
          out += kHex[c >> 4];
          out += kHex[c & 0xf];
        } else {
          out += ch;
        }
    }
  }
  out += '"';
}

void append_json_number(std::string& out, double v, const JsonFlavor& flavor) {
  if (std::isfinite(v)) {
    char buf[32];  // the longest shortest-form double takes 24
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
  } else if (flavor.non_finite == JsonNonFinite::Null) {
    out += "null";
  } else if (std::isnan(v)) {
    out += "NaN";
  } else {
    out += v > 0 ? "Infinity" : "-Infinity";
  }
}

std::string json_number(double v, const JsonFlavor& flavor) {
  std::string out;
  append_json_number(out, v, flavor);
  return out;
}

}  // namespace bnscope
