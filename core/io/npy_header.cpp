#include "io/npy_header.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "tensor/error.h"

namespace bnscope {

namespace {

constexpr unsigned char kMagic[] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
constexpr int kMaxHeaderDepth = 16;

struct PyMember;

// The subset of Python literals a .npy header can hold.
struct PyValue {
  enum class Kind { None, Bool, Int, Str, Tuple, List, Dict };
  Kind kind = Kind::None;
  bool b = false;
  std::int64_t i = 0;
  std::string s;
  std::vector<PyValue> items;
  std::vector<PyMember> dict;
};

// Shaped like std::pair, which may not hold the still incomplete PyValue.
struct PyMember {
  std::string first;
  PyValue second;
};

// Printable, single-line excerpt of header text for messages.
std::string excerpt(std::string_view text, std::size_t at) {
  const std::size_t begin = at > 20 ? at - 20 : 0;
  std::string out;
  for (std::size_t k = begin; k < text.size() && k < begin + 40; ++k) {
    const unsigned char c = static_cast<unsigned char>(text[k]);
    out += (c >= 0x20 && c < 0x7f) ? static_cast<char>(c) : '?';
  }
  return out;
}

class LiteralParser {
 public:
  LiteralParser(std::string_view text, std::string_view what) : text_(text), what_(what) {}

  PyValue parse_all() {
    PyValue v = value(0);
    skip_space();
    if (pos_ != text_.size()) error("unexpected text after the header dict");
    return v;
  }

 private:
  [[noreturn]] void error(const std::string& problem) const {
    fail(std::string(what_) + ": malformed .npy header: " + problem + " at offset " +
         std::to_string(pos_) + " near \"" + excerpt(text_, pos_) +
         "\"; expected a dict literal like {'descr': '<f4', 'fortran_order': False, "
         "'shape': (2, 3), }");
  }

  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r'))
      ++pos_;
  }
  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return text_[pos_]; }

  bool accept_word(std::string_view w) {
    if (text_.substr(pos_, w.size()) != w) return false;
    const std::size_t after = pos_ + w.size();
    if (after < text_.size()) {
      const char c = text_[after];
      if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') return false;
    }
    pos_ = after;
    return true;
  }

  PyValue value(int depth) {
    if (depth > kMaxHeaderDepth) error("nesting too deep");
    skip_space();
    if (at_end()) error("unexpected end of header");
    const char c = peek();
    PyValue v;
    if (c == '\'' || c == '"') {
      v.kind = PyValue::Kind::Str;
      v.s = string();
    } else if (c == '{') {
      v = dict(depth);
    } else if (c == '(' || c == '[') {
      v = sequence(depth);
    } else if (c == '-' || c == '+' || (c >= '0' && c <= '9')) {
      v.kind = PyValue::Kind::Int;
      v.i = integer();
    } else if (accept_word("True")) {
      v.kind = PyValue::Kind::Bool;
      v.b = true;
    } else if (accept_word("False")) {
      v.kind = PyValue::Kind::Bool;
    } else if (accept_word("None")) {
      v.kind = PyValue::Kind::None;
    } else {
      error("unexpected character");
    }
    return v;
  }

  std::string string() {
    const char quote = text_[pos_++];
    std::string out;
    while (true) {
      if (at_end()) error("unterminated string");
      const char c = text_[pos_++];
      if (c == quote) return out;
      if (c == '\n') error("newline inside a string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (at_end()) error("unterminated string");
      const char e = text_[pos_++];
      switch (e) {
        case '\\':
        case '\'':
        case '"':
          out += e;
          break;
        case 'n':
          out += '\n';
          break;
        case 't':
          out += '\t';
          break;
        default:
          --pos_;
          error("unsupported escape sequence in a string");
      }
    }
  }

  std::int64_t integer() {
    bool negative = false;
    if (peek() == '-' || peek() == '+') {
      negative = peek() == '-';
      ++pos_;
    }
    const std::size_t start = pos_;
    std::uint64_t v = 0;
    while (!at_end() && peek() >= '0' && peek() <= '9') {
      const unsigned d = static_cast<unsigned>(peek() - '0');
      if (v > (static_cast<std::uint64_t>(INT64_MAX) - d) / 10) error("integer out of range");
      v = v * 10 + d;
      ++pos_;
    }
    if (pos_ == start) error("expected digits");
    if (pos_ - start > 1 && text_[start] == '0') error("integer with a leading zero");
    if (!at_end() && (std::isalpha(static_cast<unsigned char>(peek())) || peek() == '.'))
      error("expected an integer");
    const auto s = static_cast<std::int64_t>(v);
    return negative ? -s : s;
  }

  // Python semantics: (x) is x itself, (x,) and () are tuples.
  PyValue sequence(int depth) {
    const char open = text_[pos_++];
    const char close = open == '(' ? ')' : ']';
    PyValue v;
    v.kind = open == '(' ? PyValue::Kind::Tuple : PyValue::Kind::List;
    bool trailing_comma = false;
    while (true) {
      skip_space();
      if (at_end()) error(std::string("expected '") + close + "'");
      if (peek() == close) {
        ++pos_;
        break;
      }
      v.items.push_back(value(depth + 1));
      skip_space();
      if (at_end()) error(std::string("expected ',' or '") + close + "'");
      if (peek() == ',') {
        ++pos_;
        trailing_comma = true;
      } else if (peek() == close) {
        ++pos_;
        trailing_comma = false;
        break;
      } else {
        error(std::string("expected ',' or '") + close + "'");
      }
    }
    if (open == '(' && v.items.size() == 1 && !trailing_comma) return std::move(v.items[0]);
    return v;
  }

  PyValue dict(int depth) {
    ++pos_;
    PyValue v;
    v.kind = PyValue::Kind::Dict;
    while (true) {
      skip_space();
      if (at_end()) error("expected '}'");
      if (peek() == '}') {
        ++pos_;
        return v;
      }
      if (peek() != '\'' && peek() != '"') error("expected a string key");
      std::string key = string();
      for (const auto& [k, unused] : v.dict)
        if (k == key) error("duplicate key '" + key + "'");
      skip_space();
      if (at_end() || peek() != ':') error("expected ':'");
      ++pos_;
      v.dict.push_back({std::move(key), value(depth + 1)});
      skip_space();
      if (at_end()) error("expected ',' or '}'");
      if (peek() == ',') {
        ++pos_;
      } else if (peek() != '}') {
        error("expected ',' or '}'");
      }
    }
  }

  std::string_view text_;
  std::string_view what_;
  std::size_t pos_ = 0;
};

std::uint32_t read_le(const std::byte* p, int n) {
  std::uint32_t v = 0;
  for (int k = n - 1; k >= 0; --k) v = (v << 8) | std::to_integer<std::uint32_t>(p[k]);
  return v;
}

std::string tuple_text(const Shape& s) {
  std::string out = "(";
  for (std::size_t k = 0; k < s.size(); ++k) out += (k ? ", " : "") + std::to_string(s[k]);
  return out + (s.size() == 1 ? ",)" : ")");
}

}  // namespace

DType NpyDescr::target() const {
  switch (kind) {
    case Kind::Float:
      return itemsize == 2 ? DType::F16 : itemsize == 4 ? DType::F32 : DType::F64;
    case Kind::BFloat16:
      return DType::BF16;
    case Kind::Int:
    case Kind::UInt:
    case Kind::Bool:
    case Kind::Complex:
      break;
  }
  return DType::F64;
}

NpyDescr parse_npy_descr(std::string_view descr, std::string_view what) {
  // Built piecewise: g++ 12 gives a false -Wrestrict on "'" + std::string.
  std::string quoted(1, '\'');
  quoted += excerpt(descr, 0);
  quoted += '\'';
  auto reject = [&](const std::string& why) -> NpyDescr {
    fail(std::string(what) + ": unsupported dtype " + quoted + " (" + why +
         "); expected float16, float32, float64 or bfloat16 ('<V2')");
  };
  NpyDescr d;
  d.text = std::string(descr);
  std::string_view rest = descr;
  char order = '=';
  if (!rest.empty() && (rest[0] == '<' || rest[0] == '>' || rest[0] == '|' || rest[0] == '=')) {
    order = rest[0];
    rest.remove_prefix(1);
  }
  if (rest.empty()) return reject("not a numpy type string");
  const char kind = rest[0];
  switch (kind) {
    case 'O':
      return reject("python objects");
    case 'S':
    case 'U':
    case 'a':
      return reject("strings");
    case 'M':
    case 'm':
      return reject("date/time");
    default:
      break;
  }
  if (rest.size() < 2) return reject("not a numpy type string");
  int size = 0;
  for (char c : rest.substr(1)) {
    if (c < '0' || c > '9' || size > 1000) return reject("not a numpy type string");
    size = size * 10 + (c - '0');
  }
  switch (kind) {
    case 'f':
      if (size != 2 && size != 4 && size != 8) return reject("only 2-, 4- and 8-byte floats");
      d.kind = NpyDescr::Kind::Float;
      break;
    case 'i':
    case 'u':
      if (size != 1 && size != 2 && size != 4 && size != 8)
        return reject("only 1-, 2-, 4- and 8-byte integers");
      d.kind = kind == 'i' ? NpyDescr::Kind::Int : NpyDescr::Kind::UInt;
      break;
    case 'c':
      if (size != 8 && size != 16) return reject("complex of 8 or 16 bytes only");
      d.kind = NpyDescr::Kind::Complex;  // read as such only to be refused by name
      break;
    case 'b':
      if (size != 1) return reject("bool must be 1 byte");
      d.kind = NpyDescr::Kind::Bool;
      break;
    case 'V':
      // ml_dtypes' bfloat16 is not a builtin numpy type, so np.save writes it as a raw 2-byte
      // void ('<V2'); every other void width is opaque.
      if (size != 2) return reject("raw void data; only 2-byte void is read, as bfloat16");
      d.kind = NpyDescr::Kind::BFloat16;
      break;
    default:
      return reject("not a numeric type");
  }
  d.itemsize = size;
  if (order == '|' && size > 1 && d.kind != NpyDescr::Kind::BFloat16)
    return reject("multi-byte type without a byte order");
  // '=' (native) is little-endian on every host bnscope builds for.
  d.big_endian = order == '>' && size > 1;
  return d;
}

NpyHeader parse_npy_header(std::span<const std::byte> bytes, std::string_view what) {
  const std::string w(what);
  const std::size_t n = bytes.size();
  if (n == 0) fail(w + ": empty file; expected a .npy header");
  const std::size_t magic_len = std::min<std::size_t>(n, sizeof kMagic);
  if (std::memcmp(bytes.data(), kMagic, magic_len) != 0)
    fail(w + ": not a .npy file (expected the magic bytes \\x93NUMPY at the start)");
  if (n < 10)
    fail(w + ": truncated .npy header: the file has " + std::to_string(n) +
         " bytes, expected at least 10");
  NpyHeader h;
  h.major = std::to_integer<int>(bytes[6]);
  const int minor = std::to_integer<int>(bytes[7]);
  if (h.major < 1 || h.major > 3 || minor != 0)
    fail(w + ": unsupported .npy format version " + std::to_string(h.major) + "." +
         std::to_string(minor) + "; expected 1.0, 2.0 or 3.0");
  const std::size_t prefix = h.major == 1 ? 10 : 12;
  if (n < prefix)
    fail(w + ": truncated .npy header: the file has " + std::to_string(n) + " bytes, expected " +
         "at least " + std::to_string(prefix));
  const std::size_t header_len = read_le(bytes.data() + 8, h.major == 1 ? 2 : 4);
  if (header_len > n - prefix)
    fail(w + ": truncated .npy header: header_len is " + std::to_string(header_len) + " but only " +
         std::to_string(n - prefix) + " bytes follow the prefix");
  h.data_offset = prefix + header_len;
  const std::string_view text(reinterpret_cast<const char*>(bytes.data() + prefix), header_len);

  const PyValue root = LiteralParser(text, what).parse_all();
  if (root.kind != PyValue::Kind::Dict)
    fail(w + ": malformed .npy header: expected a dict literal, got another value");
  const PyValue* descr = nullptr;
  const PyValue* fortran = nullptr;
  const PyValue* shape = nullptr;
  for (const auto& [key, v] : root.dict) {
    if (key == "descr")
      descr = &v;
    else if (key == "fortran_order")
      fortran = &v;
    else if (key == "shape")
      shape = &v;
    else
      fail(w + ": malformed .npy header: unexpected key '" + excerpt(key, 0) +
           "'; expected only 'descr', 'fortran_order' and 'shape'");
  }
  for (auto [p, name] :
       {std::pair{descr, "descr"}, std::pair{fortran, "fortran_order"}, std::pair{shape, "shape"}})
    if (!p) fail(w + ": malformed .npy header: missing key '" + name + "'");

  if (descr->kind == PyValue::Kind::List)
    fail(w +
         ": unsupported dtype: structured arrays (a list descr) are not supported; "
         "expected a plain numeric descr such as '<f4'");
  if (descr->kind != PyValue::Kind::Str)
    fail(w + ": malformed .npy header: 'descr' must be a string such as '<f4'");
  h.descr = parse_npy_descr(descr->s, what);

  if (fortran->kind != PyValue::Kind::Bool)
    fail(w + ": malformed .npy header: 'fortran_order' must be True or False");
  h.fortran_order = fortran->b;

  if (shape->kind != PyValue::Kind::Tuple)
    fail(w + ": malformed .npy header: 'shape' must be a tuple of integers such as (2, 3)");
  for (const PyValue& d : shape->items) {
    if (d.kind != PyValue::Kind::Int)
      fail(w + ": malformed .npy header: 'shape' must be a tuple of integers such as (2, 3)");
    h.shape.push_back(d.i);
  }
  for (std::int64_t d : h.shape)
    if (d < 0)
      fail(w + ": bad .npy shape " + tuple_text(h.shape) + ": negative dimension " +
           std::to_string(d) + "; expected sizes >= 0");
  try {
    num_elements(h.shape);
  } catch (const Error& e) {
    fail(w + ": bad .npy shape " + tuple_text(h.shape) + ": " + e.what());
  }
  return h;
}

}  // namespace bnscope
