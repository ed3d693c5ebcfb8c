#pragma once
// How JSON strings and numbers are spelled, in one place for both the JsonValue dumper and the
// streaming JsonWriter. Two flavours differ on purpose: problem.json spells NaN and +-Infinity as
// Python's json does so such values survive a round trip, while reports write null for them
// (strict JSON) and escape '<', '>' and '&' so the text can also sit inside an HTML <script>.

#include <string>
#include <string_view>

namespace bnscope {

enum class JsonNonFinite { PythonSpelling, Null };

struct JsonFlavor {
  JsonNonFinite non_finite = JsonNonFinite::Null;
  bool html_safe = false;  // '<', '>' and '&' as \u escapes
};

inline constexpr JsonFlavor kPythonJson{JsonNonFinite::PythonSpelling, false};  // problem.json
inline constexpr JsonFlavor kReportJson{JsonNonFinite::Null, true};             // reports, traces

// Appends `s` quoted and escaped.
void append_json_string(std::string& out, std::string_view s, const JsonFlavor& flavor);
// Appends `v` in shortest round-trip form.
void append_json_number(std::string& out, double v, const JsonFlavor& flavor);

std::string json_number(double v, const JsonFlavor& flavor = kReportJson);

}  // namespace bnscope
