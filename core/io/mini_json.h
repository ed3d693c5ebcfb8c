#pragma once
// A small, strict JSON value with a reader and a writer, for the few fixed-schema text members
// bnscope stores (problem.json). Numbers are doubles written in shortest round-trip form; NaN
// and +-Infinity use Python's json spelling so such values survive a round trip. Object members
// keep their order; duplicate keys are rejected.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

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
  JsonValue& add(std::string key, JsonValue v);       // appends to an object
};

// A key and its value, shaped like std::pair (which may not hold the still incomplete JsonValue).
struct JsonMember {
  std::string first;
  JsonValue second;
};

// `what` names the source in error messages.
JsonValue parse_json(std::string_view text, std::string_view what);
std::string dump_json(const JsonValue& v);  // indented, ends with a newline

}  // namespace bnscope
