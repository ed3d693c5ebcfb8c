#pragma once
// A small streaming JSON writer: indentation and commas, with strings and numbers spelled by
// io/json_text.h. Reports use the default flavour: null for non-finite values (JSON has no NaN or
// Inf) and '<', '>' and '&' escaped so the text can also sit inside an HTML <script> element.

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "io/json_text.h"

namespace bnscope {

class JsonWriter {
 public:
  explicit JsonWriter(std::ostream& os, bool pretty = true, JsonFlavor flavor = kReportJson)
      : os_(os), pretty_(pretty), flavor_(flavor) {}

  JsonWriter& begin_object() { return open('{'); }
  JsonWriter& end_object();  // the outermost one ends its line when pretty
  JsonWriter& begin_array() { return open('['); }
  JsonWriter& end_array() { return close(']'); }
  JsonWriter& key(std::string_view k);

  JsonWriter& value(std::string_view s);
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(const std::string& s) { return value(std::string_view(s)); }
  JsonWriter& value(double v);
  JsonWriter& value(std::int64_t v) { return scalar(std::to_string(v)); }
  JsonWriter& value(std::uint64_t v) { return scalar(std::to_string(v)); }
  JsonWriter& value(int v) { return value(static_cast<std::int64_t>(v)); }
  JsonWriter& value(bool v) { return scalar(v ? "true" : "false"); }
  JsonWriter& null() { return scalar("null"); }

  template <class T>
  JsonWriter& field(std::string_view k, const T& v) {
    key(k);
    return value(v);
  }

 private:
  JsonWriter& open(char bracket);
  JsonWriter& close(char bracket);
  JsonWriter& scalar(std::string_view text);
  void separate();
  void newline();

  std::ostream& os_;
  bool pretty_;
  JsonFlavor flavor_;
  bool after_key_ = false;
  std::vector<bool> first_;  // per open container: nothing written yet
};

}  // namespace bnscope
