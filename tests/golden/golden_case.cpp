#include "golden_case.h"

#include <algorithm>
#include <filesystem>
#include <string_view>

#include "io/json_value.h"
#include "io/npz.h"
#include "tensor/error.h"

namespace bnscope {

namespace {

const JsonValue& member(const JsonValue& obj, std::string_view key, const std::string& what) {
  const JsonValue* v = obj.find(key);
  if (!v) fail(what + ": case.json has no '" + std::string(key) + "'");
  return *v;
}

DType dtype_of(const JsonValue& member_dtypes, const std::string& name, const std::string& what) {
  const JsonValue& v = member(member_dtypes, name, what);
  const auto d = parse_dtype(v.string);
  if (!d) fail(what + ": unknown dtype '" + v.string + "' for " + name);
  return *d;
}

AttrValue attr_of(const JsonValue& v, const std::string& what) {
  switch (v.kind) {
    case JsonValue::Kind::Bool:
      return v.boolean;
    case JsonValue::Kind::Number:
      return v.number;
    case JsonValue::Kind::String:
      return v.string;
    default:
      fail(what + ": attrs must be booleans, numbers or strings");
  }
}

}  // namespace

std::string golden_data_dir() {
  return std::string(BNSCOPE_SOURCE_DIR) + "/tests/golden/data";
}

std::vector<std::string> golden_case_names() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(golden_data_dir(), ec))
    if (e.path().extension() == ".npz") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

GoldenCase load_golden_case(const std::string& name) {
  const std::string path = golden_data_dir() + "/" + name + ".npz";
  const std::vector<std::byte> json_bytes = read_npz_bytes(path, "case.json");
  const JsonValue meta = parse_json(
      std::string_view(reinterpret_cast<const char*>(json_bytes.data()), json_bytes.size()),
      path + ":case.json");
  const JsonValue& member_dtypes = member(meta, "member_dtypes", path);

  GoldenCase c;
  c.name = name;
  c.tf_version = member(meta, "tf_version", path).string;
  c.problem.op = member(meta, "op", path).string;
  c.problem.dtype = parse_dtype(member(meta, "dtype", path).string);
  for (const auto& [key, value] : member(meta, "attrs", path).members)
    c.problem.attrs[key] = attr_of(value, path);

  for (auto& [key, tensor] : read_npz(path)) {
    const DType tf_dtype = dtype_of(member_dtypes, key, path);
    // numpy has no bfloat16: the file holds float32 copies of exact bfloat16 values.
    Tensor t = tensor.dtype() == tf_dtype ? std::move(tensor) : tensor.to(tf_dtype);
    if (key.starts_with("out_"))
      c.outputs[key.substr(4)] = {std::move(t), tf_dtype};
    else
      c.problem.inputs[key] = std::move(t);
  }

  if (const JsonValue* parts = meta.find("expected_error_parts"))
    for (const JsonValue& p : parts->items) c.expected_error_parts.push_back(p.string);
  else if (const JsonValue* e = meta.find("expected_error"))
    c.expected_error_parts.push_back(e->string);
  return c;
}

}  // namespace bnscope
