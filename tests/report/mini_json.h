#pragma once
// A strict little JSON parser for checking the writers' output: objects, arrays, strings with
// escapes, numbers, true/false/null. Throws std::runtime_error on anything malformed.

#include <cctype>
#include <cstdlib>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace bnscope::testing {

struct Json {
  enum Kind { Null, Bool, Number, String, Array, Object } kind = Null;
  bool b = false;
  double n = 0;
  std::string s;
  std::vector<Json> a;
  std::map<std::string, Json> o;
  bool has(const std::string& k) const { return kind == Object && o.count(k); }
  const Json& operator[](const std::string& k) const {
    if (!has(k)) throw std::runtime_error("missing key " + k);
    return o.at(k);
  }
};

class JsonParser {
 public:
  explicit JsonParser(const std::string& text) : t_(text) {}
  Json parse() {
    Json v = value();
    ws();
    if (i_ != t_.size()) fail("trailing characters");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& why) {
    throw std::runtime_error("JSON: " + why + " at offset " + std::to_string(i_));
  }
  void ws() {
    while (i_ < t_.size() && std::isspace(static_cast<unsigned char>(t_[i_]))) ++i_;
  }
  char peek() {
    ws();
    if (i_ >= t_.size()) fail("unexpected end");
    return t_[i_];
  }
  void expect(char c) {
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++i_;
  }
  bool literal(const char* w) {
    const std::string s(w);
    if (t_.compare(i_, s.size(), s) != 0) return false;
    i_ += s.size();
    return true;
  }
  std::string str() {
    expect('"');
    std::string out;
    while (true) {
      if (i_ >= t_.size()) fail("unterminated string");
      const char c = t_[i_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (i_ >= t_.size()) fail("bad escape");
      const char e = t_[i_++];
      switch (e) {
        case 'n':
          out += '\n';
          break;
        case 't':
          out += '\t';
          break;
        case 'r':
          out += '\r';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case '/':
        case '\\':
        case '"':
          out += e;
          break;
        case 'u': {
          if (i_ + 4 > t_.size()) fail("bad \\u");
          const long cp = std::strtol(t_.substr(i_, 4).c_str(), nullptr, 16);
          i_ += 4;
          out += cp < 0x80 ? static_cast<char>(cp) : '?';
          break;
        }
        default:
          fail("bad escape");
      }
    }
  }
  Json value() {
    Json v;
    const char c = peek();
    if (c == '{') {
      ++i_;
      v.kind = Json::Object;
      if (peek() == '}') {
        ++i_;
        return v;
      }
      while (true) {
        std::string k = str();
        expect(':');
        if (v.o.count(k)) fail("duplicate key " + k);
        v.o[k] = value();
        if (peek() == ',') {
          ++i_;
          continue;
        }
        expect('}');
        return v;
      }
    }
    if (c == '[') {
      ++i_;
      v.kind = Json::Array;
      if (peek() == ']') {
        ++i_;
        return v;
      }
      while (true) {
        v.a.push_back(value());
        if (peek() == ',') {
          ++i_;
          continue;
        }
        expect(']');
        return v;
      }
    }
    if (c == '"') {
      v.kind = Json::String;
      v.s = str();
      return v;
    }
    if (literal("true")) {
      v.kind = Json::Bool;
      v.b = true;
      return v;
    }
    if (literal("false")) {
      v.kind = Json::Bool;
      return v;
    }
    if (literal("null")) return v;
    const char* start = t_.c_str() + i_;
    char* end = nullptr;
    v.n = std::strtod(start, &end);
    if (end == start || !(c == '-' || std::isdigit(static_cast<unsigned char>(c))))
      fail("bad value");
    i_ += static_cast<std::size_t>(end - start);
    v.kind = Json::Number;
    return v;
  }
  const std::string& t_;
  std::size_t i_ = 0;
};

inline Json parse_json(const std::string& text) {
  return JsonParser(text).parse();
}

}  // namespace bnscope::testing
