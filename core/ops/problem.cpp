#include "ops/problem.h"

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>

#include "tensor/error.h"

namespace bnscope {

std::string_view convention_name(ReserveConvention c) {
  return c == ReserveConvention::Variance ? "variance" : "inv_std";
}

std::optional<ReserveConvention> parse_convention(std::string_view s) {
  if (s == "variance" || s == "cpu") return ReserveConvention::Variance;
  if (s == "inv_std" || s == "cudnn" || s == "gpu") return ReserveConvention::InvStd;
  return std::nullopt;
}

namespace {

const OpSpec& op_of(const Problem& p) {
  const OpSpec* op = find_op(p.op);
  if (!op) fail("unknown op '" + p.op + "'; expected one of " + op_names_joined());
  return *op;
}

const AttrSpec& attr_of(const Problem& p, std::string_view name) {
  const OpSpec& op = op_of(p);
  const AttrSpec* a = op.attr(name);
  if (!a) {
    std::string names;
    for (const AttrSpec& s : op.attrs) names += (names.empty() ? "" : ", ") + std::string(s.name);
    fail("unknown attr '" + std::string(name) + "' for " + p.op + "; expected one of " + names);
  }
  return *a;
}

AttrValue parse_value(const Problem& p, const AttrSpec& a, const std::string& text) {
  switch (a.type) {
    case AttrType::Float: {
      errno = 0;
      char* end = nullptr;
      const double v = std::strtod(text.c_str(), &end);
      // Decimal notation only: strtod also takes hexadecimal (0x10 is 16) and leading blanks.
      const bool decimal = text.find_first_of("xXpP \t\n\r\f\v") == std::string::npos;
      // Underflow to a subnormal (1e-45) is still a number; only overflow is refused.
      if (text.empty() || !decimal || *end != '\0' || (errno == ERANGE && std::fabs(v) > 1))
        fail("attr '" + std::string(a.name) + "' of " + p.op + " expects a number, got '" +
             clip_for_message(text) + "'");
      if (!std::isfinite(v))
        fail("attr '" + std::string(a.name) + "' of " + p.op + " must be finite, got '" +
             clip_for_message(text) + "'");
      if (const std::string why = float32_attr_problem(a.name, v); !why.empty())
        fail(why + " (" + p.op + ")");
      return v;
    }
    case AttrType::Bool:
      if (const auto b = parse_bool_text(text)) return *b;
      fail("attr '" + std::string(a.name) + "' of " + p.op + " expects true or false, got '" +
           clip_for_message(text) + "'");
    case AttrType::String:
      break;
  }
  return text;
}

const AttrValue& value_or_default(const Problem& p, std::string_view name, AttrValue& storage) {
  const AttrSpec& a = attr_of(p, name);
  if (auto it = p.attrs.find(std::string(name)); it != p.attrs.end()) return it->second;
  if (a.required())
    fail("attr '" + std::string(name) + "' is required by " + p.op +
         " (TensorFlow gives it no default)");
  storage = parse_value(p, a, std::string(a.default_value));
  return storage;
}

}  // namespace

void Problem::set_attr(const std::string& key, const std::string& text) {
  attrs[key] = parse_value(*this, attr_of(*this, key), text);
}

double attr_float(const Problem& p, std::string_view name) {
  AttrValue s;
  const AttrValue& v = value_or_default(p, name, s);
  if (const double* d = std::get_if<double>(&v)) return *d;
  fail("attr '" + std::string(name) + "' must be a number");
}

bool attr_bool(const Problem& p, std::string_view name) {
  AttrValue s;
  const AttrValue& v = value_or_default(p, name, s);
  if (const bool* b = std::get_if<bool>(&v)) return *b;
  fail("attr '" + std::string(name) + "' must be true or false");
}

std::string attr_string(const Problem& p, std::string_view name) {
  AttrValue s;
  const AttrValue& v = value_or_default(p, name, s);
  if (const std::string* str = std::get_if<std::string>(&v)) return *str;
  fail("attr '" + std::string(name) + "' must be a string");
}

std::optional<bool> parse_bool_text(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "true" || lower == "1") return true;
  if (lower == "false" || lower == "0") return false;
  return std::nullopt;
}

std::string float32_attr_problem(std::string_view name, double v) {
  if (std::isfinite(static_cast<float>(v))) return "";
  return "attr '" + std::string(name) +
         "' must be finite in float32 (TensorFlow's float attrs are " +
         "32-bit; the largest is 3.4028235e+38), got " + attr_value_text(AttrValue{v});
}

std::string attr_value_text(const AttrValue& v) {
  if (const double* d = std::get_if<double>(&v)) {
    char buf[64];  // the shortest text that reads back as the same double
    const auto r = std::to_chars(buf, buf + sizeof buf, *d);
    return std::string(buf, r.ptr);
  }
  if (const bool* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  return std::get<std::string>(v);
}

std::string describe_case(const Problem& p) {
  std::string s = p.op;
  const OpSpec* op = find_op(p.op);
  const std::string x = op ? std::string(op->data_input()) : "x";
  if (auto it = p.inputs.find(x); it != p.inputs.end())
    s += " " + shape_str(it->second.shape()) + " " +
         std::string(dtype_name(p.dtype.value_or(it->second.dtype())));
  if (op && op->has_attr("data_format")) s += " " + attr_string(p, "data_format");
  if (op && op->has_modes()) s += " " + std::string(mode_name(attr_bool(p, "is_training")));
  return s;
}

}  // namespace bnscope
