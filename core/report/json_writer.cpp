#include "report/json_writer.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace bnscope {

std::string json_escape(std::string_view s) {
  std::string out = "\"";
  for (char ch : s) {
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
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (c < 0x20 || c == '<' || c == '>' || c == '&') {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += ch;
        }
    }
  }
  return out + "\"";
}

std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  if (ec != std::errc()) return "null";
  return std::string(buf, end);
}

void JsonWriter::separate() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (first_.empty()) return;
  if (!first_.back()) raw(",");
  first_.back() = false;
  if (pretty_) {
    raw("\n");
    raw(std::string(2 * first_.size(), ' '));
  }
}

JsonWriter& JsonWriter::begin_object() {
  separate();
  raw("{");
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::end_object() {
  const bool empty = first_.back();
  first_.pop_back();
  if (pretty_ && !empty) {
    raw("\n");
    raw(std::string(2 * first_.size(), ' '));
  }
  raw("}");
  if (first_.empty() && pretty_) raw("\n");
  return *this;
}

JsonWriter& JsonWriter::begin_array() {
  separate();
  raw("[");
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::end_array() {
  const bool empty = first_.back();
  first_.pop_back();
  if (pretty_ && !empty) {
    raw("\n");
    raw(std::string(2 * first_.size(), ' '));
  }
  raw("]");
  return *this;
}

JsonWriter& JsonWriter::key(std::string_view k) {
  separate();
  raw(json_escape(k));
  raw(pretty_ ? ": " : ":");
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view s) {
  separate();
  raw(json_escape(s));
  return *this;
}

JsonWriter& JsonWriter::value(double v) {
  separate();
  raw(json_number(v));
  return *this;
}

JsonWriter& JsonWriter::value(std::int64_t v) {
  separate();
  raw(std::to_string(v));
  return *this;
}

JsonWriter& JsonWriter::value(std::uint64_t v) {
  separate();
  raw(std::to_string(v));
  return *this;
}

JsonWriter& JsonWriter::value(bool v) {
  separate();
  raw(v ? "true" : "false");
  return *this;
}

JsonWriter& JsonWriter::null() {
  separate();
  raw("null");
  return *this;
}

}  // namespace bnscope
