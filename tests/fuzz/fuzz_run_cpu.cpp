// Validation and execution on the cpu backend with a fuzzer-chosen op, dtype, attrs, shapes and
// tensor contents. Every case must end in a Result or an Error. For "tame" cases (moderate values,
// positive variances, valid attrs) cpu must also agree with cpu-reference.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "fuzz_input.h"
#include "tensor/error.h"

namespace bnscope::fuzz {
namespace {

constexpr std::int64_t kMaxElements = 2048;

const char* pick_text(FuzzInput& in, std::initializer_list<const char*> options) {
  return options.begin()[in.pick(options.size())];
}

std::string float_text(FuzzInput& in, bool tame) {
  if (tame) return pick_text(in, {"0.001", "0.0001", "0.01", "0.5", "1"});
  if (in.pick(4) == 0) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(in.raw_float()));
    return buf;
  }
  return pick_text(
      in, {"0",      "-1", "nan", "inf", "-inf",  "1e-30", "1e30", "1e400", "abc", "",   "0.001",
           "0.0001", "1",  "0.5", "-0",  "1e-45", " 1",    "1x",   "0x10",  "+2",  "1e", "."});
}

void set_attrs(FuzzInput& in, const OpSpec& op, bool tame, Problem& p) {
  for (const AttrSpec& a : op.attrs) {
    if (in.pick(3) == 0 && !(tame && a.required())) continue;
    const std::string key(a.name);
    std::string text;
    switch (a.type) {
      case AttrType::Float:
        text = float_text(in, tame);
        break;
      case AttrType::Bool:
        text = tame ? pick_text(in, {"true", "false"})
                    : pick_text(in, {"true", "false", "1", "0", "True", "yes", ""});
        break;
      case AttrType::String:
        if (tame || in.pick(4) != 0)
          text = a.allowed.empty() ? "x" : std::string(a.allowed[in.pick(a.allowed.size())]);
        else
          text = in.text(8);
        break;
    }
    if (!tame && in.pick(16) == 0) {
      p.set_attr(in.text(12), text);  // unknown keys must be rejected, not stored
      continue;
    }
    p.set_attr(key, text);
  }
}

double value(FuzzInput& in, bool tame, bool positive) {
  if (tame) {
    const int k = static_cast<int>(in.pick(65)) - 32;  // k/8 is exact in every dtype
    return positive ? (std::abs(k) + 4) / 8.0 : k / 8.0;
  }
  static const double specials[] = {0.0,  -0.0,     1.0,       -1.0,  0.5,     2.0,
                                    NAN,  INFINITY, -INFINITY, 1e-30, 65504.0, 65520.0,
                                    1e38, -1e38,    3.4e38,    1e-45, 1e300,   -3.0};
  if (in.flag()) return specials[in.pick(std::size(specials))];
  return in.raw_float();
}

bool is_data_arg(std::string_view name) {
  return name == "x" || name == "y_backprop" || name == "t" || name == "backprop";
}
bool is_variance_arg(std::string_view name) {
  return name == "variance" || name == "v" || name == "reserve_space_2";
}

Tensor make_tensor(FuzzInput& in, DType dtype, const Shape& shape, bool tame, bool positive) {
  std::int64_t n = 1;
  for (std::int64_t d : shape) n *= d;
  std::vector<double> values(static_cast<std::size_t>(n));
  for (double& v : values) v = value(in, tame, positive);
  return Tensor::from_doubles(dtype, shape, values);
}

// The data tensor's shape: [N, spatial..., C] moved to the format's channel position.
Shape data_shape(FuzzInput& in, const Problem& p, bool tame, std::int64_t& channels) {
  std::string format = "NHWC";
  if (auto it = p.attrs.find("data_format"); it != p.attrs.end())
    if (auto* s = std::get_if<std::string>(&it->second)) format = *s;
  int rank = format.size() == 5 ? 5 : 4;
  if (!tame && in.pick(8) == 0) rank = static_cast<int>(in.pick(7));
  Shape shape;
  std::int64_t n = 1;
  for (int i = 0; i < rank; ++i) {
    std::int64_t d = static_cast<std::int64_t>(in.pick(tame ? 4 : 5)) + (tame ? 1 : 0);
    if (n * std::max<std::int64_t>(d, 1) > kMaxElements) d = 1;
    n *= std::max<std::int64_t>(d, 1);
    shape.push_back(d);
  }
  const bool channels_first = format == "NCHW" || format == "NCDHW";
  channels = rank >= 2 ? shape[channels_first ? 1 : static_cast<std::size_t>(rank - 1)] : 1;
  return shape;
}

bool all_finite(const Tensor& t) {
  for (double v : t.to_doubles())
    if (!std::isfinite(v)) return false;
  return true;
}

double tolerance(DType t) {
  switch (t) {
    case DType::F16:
      return 2e-2;
    case DType::BF16:
      return 6e-2;
    case DType::F32:
      return 1e-4;
    case DType::F64:
      return 1e-10;
  }
  return 0;
}

void compare(const Result& got, const Result& want) {
  if (got.outputs.size() != want.outputs.size()) __builtin_trap();
  for (std::size_t i = 0; i < want.outputs.size(); ++i) {
    const OutputTensor& g = got.outputs[i];
    const OutputTensor& w = want.outputs[i];
    if (g.name != w.name || g.tensor.shape() != w.tensor.shape() ||
        g.tensor.dtype() != w.tensor.dtype() || g.defined != w.defined)
      __builtin_trap();
    if (!w.defined || !all_finite(g.tensor) || !all_finite(w.tensor)) continue;
    const auto gv = g.tensor.to_doubles();
    const auto wv = w.tensor.to_doubles();
    double scale = 1;
    for (double v : wv) scale = std::max(scale, std::abs(v));
    for (std::size_t j = 0; j < wv.size(); ++j)
      if (std::abs(gv[j] - wv[j]) > tolerance(w.tensor.dtype()) * scale) {
        std::fprintf(stderr, "cpu and cpu-reference differ: %s %s[%zu] = %.9g vs %.9g\n",
                     got.op.c_str(), w.name.c_str(), j, gv[j], wv[j]);
        __builtin_trap();
      }
  }
}

void run_case(FuzzInput& in) {
  const auto catalog = op_catalog();
  const OpSpec& op = catalog[in.pick(catalog.size())];
  const bool tame = in.flag();
  Problem p;
  p.op = std::string(op.name);
  const std::size_t dt = in.pick(6);
  if (dt < 4) p.dtype = tame ? op.cpu_types[dt % op.cpu_types.size()] : kAllDTypes[dt];
  p.convention = in.flag() ? ReserveConvention::InvStd : ReserveConvention::Variance;
  p.strict = !tame && in.pick(4) == 0;
  set_attrs(in, op, tame, p);

  std::int64_t channels = 1;
  const Shape xshape = data_shape(in, p, tame, channels);
  const DType t = p.dtype.value_or(DType::F32);
  for (const ArgSpec& arg : op.inputs) {
    if (!tame && in.pick(16) == 0) continue;  // missing input
    DType dtype = resolve_arg_type(op, arg.type, t);
    if (!tame && in.pick(8) == 0) dtype = kAllDTypes[in.pick(4)];
    Shape shape = is_data_arg(arg.name) ? xshape : Shape{channels};
    if (arg.name == "reserve_space_3") shape = Shape{in.pick(3) == 0 ? channels : 0};
    if (!tame && in.pick(8) == 0) {
      shape.clear();
      const std::size_t rank = in.pick(4);
      for (std::size_t i = 0; i < rank; ++i) shape.push_back(static_cast<std::int64_t>(in.pick(5)));
    }
    p.inputs[std::string(arg.name)] =
        make_tensor(in, dtype, shape, tame, is_variance_arg(arg.name));
  }

  RunContext one;
  one.threads = 1;
  const Result got = run_problem(p, "cpu", one);
  if (!tame) return;
  Result want;
  try {
    want = run_problem(p, "cpu-reference", one);
  } catch (const Error& e) {
    if (e.code() == ErrorCode::Unimplemented) return;
    // Validation is shared, so the reference rejecting what cpu ran is a bug in one of them.
    std::fprintf(stderr, "cpu ran %s but cpu-reference refused: %s\n", p.op.c_str(), e.what());
    __builtin_trap();
  }
  compare(got, want);
}

}  // namespace
}  // namespace bnscope::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  bnscope::fuzz::limit_memory_for_fuzzing();
  bnscope::fuzz::FuzzInput in(data, size);
  try {
    bnscope::fuzz::run_case(in);
  } catch (const bnscope::Error&) {
  }
  return 0;
}
