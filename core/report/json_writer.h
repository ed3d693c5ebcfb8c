#pragma once
// A small streaming JSON writer: indentation, string escaping, shortest round-trip numbers and
// null for non-finite values (JSON has no NaN or Inf). '<', '>' and '&' are escaped so the text
// can also sit inside an HTML <script> element.

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace bnscope {

class JsonWriter {
 public:
  explicit JsonWriter(std::ostream& os, bool pretty = true) : os_(os), pretty_(pretty) {}

  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(std::string_view k);

  JsonWriter& value(std::string_view s);
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(const std::string& s) { return value(std::string_view(s)); }
  JsonWriter& value(double v);
  JsonWriter& value(std::int64_t v);
  JsonWriter& value(std::uint64_t v);
  JsonWriter& value(int v) { return value(static_cast<std::int64_t>(v)); }
  JsonWriter& value(bool v);
  JsonWriter& null();

  template <class T>
  JsonWriter& field(std::string_view k, const T& v) {
    key(k);
    return value(v);
  }

 private:
  void separate();
  void raw(std::string_view s) { os_ << s; }

  std::ostream& os_;
  bool pretty_;
  bool after_key_ = false;
  std::vector<bool> first_;  // per open container: nothing written yet
};

std::string json_escape(std::string_view s);  // with the quotes
std::string json_number(double v);            // "null" when not finite

}  // namespace bnscope
