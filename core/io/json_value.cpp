#include "io/json_value.h"

#include <charconv>
#include <cmath>
#include <cstdint>

#include "tensor/error.h"

namespace bnscope {

JsonValue JsonValue::of(bool b) {
  JsonValue v;
  v.kind = Kind::Bool;
  v.boolean = b;
  return v;
}

JsonValue JsonValue::of(double d) {
  JsonValue v;
  v.kind = Kind::Number;
  v.number = d;
  return v;
}

JsonValue JsonValue::of(std::string s) {
  JsonValue v;
  v.kind = Kind::String;
  v.string = std::move(s);
  return v;
}

JsonValue JsonValue::object() {
  JsonValue v;
  v.kind = Kind::Object;
  return v;
}

const JsonValue* JsonValue::find(std::string_view key) const {
  for (const auto& [k, v] : members)
    if (k == key) return &v;
  return nullptr;
}

const JsonValue& JsonValue::at(std::string_view key) const {
  const JsonValue* v = find(key);
  if (!v) fail("JSON object has no member \"" + std::string(key) + "\"");
  return *v;
}

JsonValue& JsonValue::add(std::string key, JsonValue v) {
  members.push_back({std::move(key), std::move(v)});
  return members.back().second;
}

namespace {

constexpr int kMaxDepth = 64;

// Recursive descent over the text; offsets in messages count bytes from its start.
class Reader {
 public:
  Reader(std::string_view text, std::string_view what) : t_(text), what_(what) {}

  JsonValue document() {
    JsonValue v = value(0);
    if (peek() != kEnd) error("unexpected text after the value");
    return v;
  }

 private:
  static constexpr int kEnd = -1;

  [[noreturn]] void error(const std::string& problem) const {
    fail(std::string(what_) + ": malformed JSON: " + problem + " at offset " + std::to_string(p_));
  }
  // The next byte after white space, or kEnd.
  int peek() {
    for (; p_ < t_.size(); ++p_)
      if (t_[p_] != ' ' && t_[p_] != '\t' && t_[p_] != '\n' && t_[p_] != '\r')
        return static_cast<unsigned char>(t_[p_]);
    return kEnd;
  }
  bool accept(char c) {  // c is ASCII
    if (peek() != c) return false;
    ++p_;
    return true;
  }
  void expect(char c) {
    if (!accept(c)) error(std::string("expected '") + c + "'");
  }
  bool word(std::string_view w) {
    if (t_.substr(p_, w.size()) != w) return false;
    p_ += w.size();
    return true;
  }

  JsonValue value(int depth) {
    if (depth > kMaxDepth) error("nesting too deep");
    const int c = peek();
    if (c == kEnd) error("unexpected end of text");
    if (c == '{') return object(depth);
    if (c == '[') return array(depth);
    if (c == '"') return JsonValue::of(string());
    if (word("true")) return JsonValue::of(true);
    if (word("false")) return JsonValue::of(false);
    if (word("null")) return JsonValue{};
    if (word("NaN")) return JsonValue::of(std::nan(""));
    if (word("Infinity")) return JsonValue::of(HUGE_VAL);
    if (word("-Infinity")) return JsonValue::of(-HUGE_VAL);
    if (c == '-' || (c >= '0' && c <= '9')) return JsonValue::of(number());
    error("unexpected character");
  }

  // Comma-separated elements up to `close`, after the opening bracket at p_.
  template <class Element>
  void elements(char close, Element element) {
    ++p_;
    if (accept(close)) return;
    do {
      element();
    } while (accept(','));
    expect(close);
  }

  JsonValue object(int depth) {
    JsonValue v = JsonValue::object();
    elements('}', [&] {
      if (peek() != '"') error("expected a string key");
      std::string key = string();
      if (v.find(key)) error("duplicate key \"" + key + "\"");
      expect(':');
      v.add(std::move(key), value(depth + 1));
    });
    return v;
  }

  JsonValue array(int depth) {
    JsonValue v;
    v.kind = JsonValue::Kind::Array;
    elements(']', [&] { v.items.push_back(value(depth + 1)); });
    return v;
  }

  double number() {
    // JSON's grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
    const std::size_t start = p_;
    auto digits = [&] {
      const std::size_t s = p_;
      while (p_ < t_.size() && t_[p_] >= '0' && t_[p_] <= '9') ++p_;
      return p_ - s;
    };
    if (t_[p_] == '-') ++p_;
    const std::size_t int_start = p_;
    const std::size_t n = digits();
    if (n == 0) error("expected digits");
    if (n > 1 && t_[int_start] == '0') error("number with a leading zero");
    if (p_ < t_.size() && t_[p_] == '.') {
      ++p_;
      if (digits() == 0) error("expected digits after '.'");
    }
    if (p_ < t_.size() && (t_[p_] == 'e' || t_[p_] == 'E')) {
      ++p_;
      if (p_ < t_.size() && (t_[p_] == '+' || t_[p_] == '-')) ++p_;
      if (digits() == 0) error("expected exponent digits");
    }
    double d = 0;
    const auto r = std::from_chars(t_.data() + start, t_.data() + p_, d);
    if (r.ec != std::errc() || r.ptr != t_.data() + p_) error("number out of range");
    return d;
  }

  unsigned hex4() {
    if (t_.size() - p_ < 4) error("truncated \\u escape");
    unsigned v = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = t_[p_++];
      v <<= 4;
      if (c >= '0' && c <= '9')
        v |= static_cast<unsigned>(c - '0');
      else if (c >= 'a' && c <= 'f')
        v |= static_cast<unsigned>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        v |= static_cast<unsigned>(c - 'A' + 10);
      else
        error("bad \\u escape");
    }
    return v;
  }

  static void utf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xc0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xe0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    } else {
      out += static_cast<char>(0xf0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    }
  }

  std::string string() {
    ++p_;
    std::string out;
    while (true) {
      if (p_ >= t_.size()) error("unterminated string");
      const char c = t_[p_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) error("control character in a string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (p_ >= t_.size()) error("unterminated string");
      const char e = t_[p_++];
      if (e == 'u') {
        unicode_escape(out);
        continue;
      }
      static constexpr std::string_view kEscape = "\"\\/bfnrt", kMeaning = "\"\\/\b\f\n\r\t";
      const std::size_t k = kEscape.find(e);
      if (k == std::string_view::npos) error("bad escape sequence");
      out += kMeaning[k];
    }
  }

  // After a backslash and u: one code point, from two escapes where it needs a surrogate pair.
  void unicode_escape(std::string& out) {
    std::uint32_t cp = hex4();
    if (cp >= 0xd800 && cp < 0xdc00) {
      if (!word("\\u")) error("unpaired surrogate");
      const unsigned lo = hex4();
      if (lo < 0xdc00 || lo >= 0xe000) error("unpaired surrogate");
      cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
    } else if (cp >= 0xdc00 && cp < 0xe000) {
      error("unpaired surrogate");
    }
    utf8(out, cp);
  }

  std::string_view t_;
  std::string_view what_;
  std::size_t p_ = 0;
};

void write(std::string& out, const JsonValue& v, int indent, const JsonFlavor& flavor) {
  const std::string pad(static_cast<std::size_t>(indent + 2), ' ');
  switch (v.kind) {
    case JsonValue::Kind::Null:
      out += "null";
      return;
    case JsonValue::Kind::Bool:
      out += v.boolean ? "true" : "false";
      return;
    case JsonValue::Kind::Number:
      append_json_number(out, v.number, flavor);
      return;
    case JsonValue::Kind::String:
      append_json_string(out, v.string, flavor);
      return;
    case JsonValue::Kind::Array:
      out += '[';
      for (std::size_t k = 0; k < v.items.size(); ++k) {
        out += k ? ", " : "";
        write(out, v.items[k], indent, flavor);
      }
      out += ']';
      return;
    case JsonValue::Kind::Object:
      break;
  }
  if (v.members.empty()) {
    out += "{}";
    return;
  }
  out += "{\n";
  for (std::size_t k = 0; k < v.members.size(); ++k) {
    out += pad;
    append_json_string(out, v.members[k].first, flavor);
    out += ": ";
    write(out, v.members[k].second, indent + 2, flavor);
    out += k + 1 < v.members.size() ? ",\n" : "\n";
  }
  out += std::string(static_cast<std::size_t>(indent), ' ') + "}";
}

}  // namespace

JsonValue parse_json(std::string_view text, std::string_view what) {
  return Reader(text, what).document();
}

std::string dump_json(const JsonValue& v, const JsonFlavor& flavor) {
  std::string out;
  write(out, v, 0, flavor);
  return out + "\n";
}

}  // namespace bnscope
