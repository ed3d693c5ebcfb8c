#pragma once
// A small, strict JSON value with a reader and a writer, for the few fixed-schema text members
// bnscope stores (problem.json) and for checking what the report writers produce. Numbers are
// doubles; the reader takes null, and NaN and +-Infinity in Python's json spelling, so both
// JsonFlavors read back. Object members keep their order; duplicate keys are rejected.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/json_text.h"

namespace bnscope {

struct JsonMember;

struct JsonValue {
  enum class Kind { Null, Bool, Number, String, Array, Object };
  Kind kind = Kind::Null;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<JsonValue> items;
  std::vector<JsonMember> members;

  static JsonValue of(bool b);
  static JsonValue of(double d);
  static JsonValue of(std::string s);
  static JsonValue object();

  const JsonValue* find(std::string_view key) const;  // objects only; nullptr when absent
  const JsonValue& at(std::string_view key) const;    // objects only; throws when absent
  JsonValue& add(std::string key, JsonValue v);       // appends to an object
};

// A key and its value, shaped like std::pair (which may not hold the still incomplete JsonValue).
struct JsonMember {
  std::string first;
  JsonValue second;
};

// `what` names the source in error messages.
JsonValue parse_json(std::string_view text, std::string_view what);
// Indented, ends with a newline.
std::string dump_json(const JsonValue& v, const JsonFlavor& flavor = kPythonJson);

}  // namespace bnscope
