#include "case_flags.h"

#include <sstream>

#include "ops/prepared.h"
#include "tensor/error.h"

namespace bnscope::cli {

Problem problem_or_sample(const app::ProblemArgs& pa, const Shape& logical_shape,
                          std::uint64_t seed) {
  const Problem& given = pa.problem;
  if (pa.inputs_given) return given;
  SampleSpec spec;
  spec.op = given.op;
  spec.dtype = given.dtype.value_or(DType::F32);
  spec.convention = given.convention;
  spec.seed = seed;
  if (!logical_shape.empty()) spec.shape = logical_shape;
  const OpSpec* op = find_op(given.op);
  if (op && op->has_attr("data_format")) {
    spec.format = *parse_data_format(attr_string(given, "data_format"));
    if ((spec.format == DataFormat::NDHWC || spec.format == DataFormat::NCDHW) &&
        logical_shape.empty())
      spec.shape = {2, 4, 8, 8, 16};
  }
  if (op && op->has_attr("is_training")) spec.is_training = attr_bool(given, "is_training");
  Problem p = random_problem(spec);
  for (const auto& [k, v] : given.attrs) p.attrs[k] = v;
  p.strict = given.strict;
  return p;
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

double parse_double_flag(const std::string& flag, const std::string& text) {
  try {
    std::size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size() && v >= 0) return v;
  } catch (const std::exception&) {
  }
  fail(flag + " expects a non-negative number, got '" + text + "'");
}

int parse_int_flag(const std::string& flag, const std::string& text, int lo, int hi) {
  try {
    std::size_t used = 0;
    const long v = std::stol(text, &used);
    if (used == text.size() && v >= lo && v <= hi) return static_cast<int>(v);
  } catch (const std::exception&) {
  }
  fail(flag + " expects an integer from " + std::to_string(lo) + " to " + std::to_string(hi) +
       ", got '" + text + "'");
}

Shape parse_shape_flag(const std::string& flag, const std::string& text) {
  std::string t = text;
  if (t.size() >= 2 && t.front() == '[' && t.back() == ']') t = t.substr(1, t.size() - 2);
  Shape s;
  for (const std::string& d : split_list(t)) {
    try {
      std::size_t used = 0;
      const long long v = std::stoll(d, &used);
      if (used != d.size() || v < 0) throw std::invalid_argument(d);
      s.push_back(v);
    } catch (const std::exception&) {
      fail(flag + " expects dimensions like 32,56,56,64, got '" + text + "'");
    }
  }
  if (s.size() != 4 && s.size() != 5)
    fail(flag + " expects 4 (N,H,W,C) or 5 (N,D,H,W,C) dimensions, got '" + text + "'");
  return s;
}

std::string describe_case(const Problem& p) {
  std::string s = p.op;
  const OpSpec* op = find_op(p.op);
  const std::string x = op && op->family == OpFamily::GlobalNorm ? "t" : "x";
  if (auto it = p.inputs.find(x); it != p.inputs.end())
    s += " " + shape_str(it->second.shape()) + " " +
         std::string(dtype_name(p.dtype.value_or(it->second.dtype())));
  if (op && op->has_attr("data_format")) s += " " + attr_string(p, "data_format");
  if (op && op->has_attr("is_training")) s += attr_bool(p, "is_training") ? " training" : " frozen";
  return s;
}

}  // namespace bnscope::cli
