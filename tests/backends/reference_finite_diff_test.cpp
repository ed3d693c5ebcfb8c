// The cpu-reference grads against central finite differences of the cpu-reference forward in
// float64, for every grad op in the catalog, every allowed data_format, both modes and every
// dtype. The scalar is sum(y * dy), so its gradient is exactly what the grad ops return.

#include <algorithm>
#include <cmath>
#include <random>

#include "reference_util.h"

namespace bnscope {
namespace {

struct FdCase {
  const OpSpec* op;
  std::string format;  // empty for the global ops
  bool flag;           // is_training for fused ops, scale_after_normalization for global ones
  DType dtype;
};

std::vector<FdCase> all_cases() {
  std::vector<FdCase> cases;
  for (const OpSpec& op : op_catalog()) {
    if (!op.is_grad) continue;
    std::vector<std::string> formats{""};
    if (const AttrSpec* a = op.attr("data_format"))
      formats.assign(a->allowed.begin(), a->allowed.end());
    std::vector<DType> dtypes = op.cpu_types;
    if (std::find(dtypes.begin(), dtypes.end(), DType::F64) == dtypes.end())
      dtypes.push_back(DType::F64);
    for (const std::string& f : formats)
      for (bool flag : {true, false})
        for (DType d : dtypes) cases.push_back({&op, f, flag, d});
  }
  return cases;
}

std::string case_name(const ::testing::TestParamInfo<FdCase>& info) {
  const FdCase& c = info.param;
  std::string flag = c.op->family == OpFamily::Fused ? (c.flag ? "train" : "freeze")
                                                     : (c.flag ? "scaled" : "unscaled");
  return std::string(c.op->name) + "_" + (c.format.empty() ? "" : c.format + "_") + flag + "_" +
         std::string(dtype_name(c.dtype));
}

double tolerance(DType d) {
  switch (d) {
    case DType::F16:
      return 2e-3;
    case DType::BF16:
      return 1.6e-2;
    case DType::F32:
      return 1e-5;
    case DType::F64:
      break;
  }
  return 1e-7;
}

// Values as the grad sees them: rounded to its input dtype, then held exactly in float64.
Tensor random_rounded(std::mt19937& rng, Shape shape, double lo, double hi, DType d) {
  std::uniform_real_distribution<double> u(lo, hi);
  Tensor t(DType::F64, std::move(shape));
  for (std::int64_t i = 0; i < t.numel(); ++i) t.set(i, u(rng));
  return t.to(d).to(DType::F64);
}

double objective(const Problem& forward, const Tensor& dy) {
  const Result r = run_problem(forward, "cpu-reference");
  const Tensor& y = r.outputs[0].tensor;
  double s = 0;
  for (std::int64_t i = 0; i < y.numel(); ++i) s += y.get(i) * dy.get(i);
  return s;
}

// d objective / d input, element by element, by central differences.
std::vector<double> finite_diff(const Problem& forward, const std::string& input,
                                const Tensor& dy) {
  constexpr double h = 1e-5;
  std::vector<double> g;
  Problem p = forward;
  Tensor& t = p.inputs.at(input);
  for (std::int64_t i = 0; i < t.numel(); ++i) {
    const double v = t.get(i);
    t.set(i, v + h);
    const double up = objective(p, dy);
    t.set(i, v - h);
    const double down = objective(p, dy);
    t.set(i, v);
    g.push_back((up - down) / (2 * h));
  }
  return g;
}

void expect_matches_fd(const Tensor& got, const std::vector<double>& fd, double tol,
                       const std::string& what) {
  ASSERT_EQ(got.numel(), static_cast<std::int64_t>(fd.size())) << what;
  double scale = 1;
  for (double v : fd) scale = std::max(scale, std::abs(v));
  for (std::size_t i = 0; i < fd.size(); ++i)
    EXPECT_NEAR(got.get(static_cast<std::int64_t>(i)), fd[i], tol * scale)
        << what << "[" << i << "]";
}

Shape data_shape(const std::string& format) {
  if (format == "NDHWC" || format == "NCDHW") return {2, 3, 2, 2, 3};
  return {2, 3, 4, 3};  // C = 3 whichever axis holds it
}

// The V1 forward keeps every argument in T, so in float64 nothing is rounded to float; the math
// is the same for all three versions. It folds the 3-D names like TensorFlow's kernel does.
std::string forward_format(const std::string& f) {
  if (f == "NDHWC") return "NHWC";
  if (f == "NCDHW") return "NCHW";
  return f;
}

class ReferenceFiniteDiff : public ::testing::TestWithParam<FdCase> {};

void run_fused(const FdCase& c) {
  const OpSpec& op = *c.op;
  const DType t = c.dtype;
  const DType u = resolve_arg_type(op, ArgType::U, t);
  const Shape shape = data_shape(c.format);
  const std::int64_t channels = c.format.rfind("NC", 0) == 0 ? shape[1] : shape.back();
  std::mt19937 rng(1234);
  const Tensor x = random_rounded(rng, shape, -2, 2, t);
  const Tensor dy = random_rounded(rng, shape, -1, 1, t);
  const Tensor scale = random_rounded(rng, {channels}, 0.5, 2, u);
  const Tensor offset = random_rounded(rng, {channels}, -1, 1, DType::F64);
  const Tensor pop_mean = random_rounded(rng, {channels}, -0.5, 0.5, u);
  const Tensor pop_var = random_rounded(rng, {channels}, 0.5, 1.5, u);

  Problem fwd;
  fwd.op = "FusedBatchNorm";
  fwd.dtype = DType::F64;
  fwd.inputs = {{"x", x}, {"scale", scale}, {"offset", offset}};
  fwd.inputs["mean"] = c.flag ? Tensor(DType::F64, {0}) : pop_mean;
  fwd.inputs["variance"] = c.flag ? Tensor(DType::F64, {0}) : pop_var;
  fwd.set_attr("epsilon", "0.001");
  fwd.set_attr("data_format", forward_format(c.format));
  fwd.set_attr("is_training", c.flag ? "true" : "false");
  const Result stats = run_problem(fwd, "cpu-reference");

  Problem grad;
  grad.op = std::string(op.name);
  grad.dtype = t;
  grad.inputs["y_backprop"] = dy.to(t);
  grad.inputs["x"] = x.to(t);
  grad.inputs["scale"] = scale.to(u);
  // Training: the forward's own batch statistics; freeze: the fixed population statistics.
  grad.inputs["reserve_space_1"] =
      (c.flag ? stats.output("reserve_space_1").tensor : pop_mean).to(u);
  grad.inputs["reserve_space_2"] =
      (c.flag ? stats.output("reserve_space_2").tensor : pop_var).to(u);
  grad.set_attr("epsilon", "0.001");
  grad.set_attr("data_format", c.format);
  grad.set_attr("is_training", c.flag ? "true" : "false");
  const Result r = run_problem(grad, "cpu-reference");
  EXPECT_EQ(r.outputs[0].tensor.dtype(), t);

  const double tol_t = std::max(tolerance(t), tolerance(u));
  expect_matches_fd(r.outputs[0].tensor, finite_diff(fwd, "x", dy), tol_t, "x_backprop");
  expect_matches_fd(r.outputs[1].tensor, finite_diff(fwd, "scale", dy), tolerance(u),
                    "scale_backprop");
  expect_matches_fd(r.outputs[2].tensor, finite_diff(fwd, "offset", dy), tolerance(u),
                    "offset_backprop");
}

void run_global(const FdCase& c) {
  const DType t = c.dtype;
  std::mt19937 rng(99);
  const Shape shape{2, 3, 2, 3};
  const Tensor x = random_rounded(rng, shape, -2, 2, t);
  const Tensor dy = random_rounded(rng, shape, -1, 1, t);
  const Tensor m = random_rounded(rng, {3}, -0.5, 0.5, t);
  const Tensor v = random_rounded(rng, {3}, 0.5, 1.5, t);
  const Tensor beta = random_rounded(rng, {3}, -1, 1, t);
  const Tensor gamma = random_rounded(rng, {3}, 0.5, 2, t);
  const std::string scaled = c.flag ? "true" : "false";

  Problem fwd;
  fwd.op = "BatchNormWithGlobalNormalization";
  fwd.dtype = DType::F64;
  fwd.inputs = {{"t", x}, {"m", m}, {"v", v}, {"beta", beta}, {"gamma", gamma}};
  fwd.set_attr("variance_epsilon", "0.001");
  fwd.set_attr("scale_after_normalization", scaled);

  Problem grad;
  grad.op = std::string(c.op->name);
  grad.dtype = t;
  grad.inputs = {{"t", x.to(t)},
                 {"m", m.to(t)},
                 {"v", v.to(t)},
                 {"gamma", gamma.to(t)},
                 {"backprop", dy.to(t)}};
  grad.set_attr("variance_epsilon", "0.001");
  grad.set_attr("scale_after_normalization", scaled);
  const Result r = run_problem(grad, "cpu-reference");

  const double tol = tolerance(t);
  expect_matches_fd(r.output("dx").tensor, finite_diff(fwd, "t", dy), tol, "dx");
  expect_matches_fd(r.output("dm").tensor, finite_diff(fwd, "m", dy), tol, "dm");
  expect_matches_fd(r.output("dv").tensor, finite_diff(fwd, "v", dy), tol, "dv");
  expect_matches_fd(r.output("db").tensor, finite_diff(fwd, "beta", dy), tol, "db");
  expect_matches_fd(r.output("dg").tensor, finite_diff(fwd, "gamma", dy), tol, "dg");
}

TEST_P(ReferenceFiniteDiff, GradMatchesForwardDerivative) {
  const FdCase& c = GetParam();
  if (c.op->family == OpFamily::Fused)
    run_fused(c);
  else
    run_global(c);
}

INSTANTIATE_TEST_SUITE_P(Catalog, ReferenceFiniteDiff, ::testing::ValuesIn(all_cases()), case_name);

// A cuDNN-style producer and consumer (reserve_space_2 = 1/sqrt(var + eps)) give the same
// gradients as the CPU convention, for every fused grad op and format.
TEST(ReferenceConvention, InvStdRoundTripMatchesVariance) {
  for (const OpSpec& op : op_catalog()) {
    if (op.family != OpFamily::Fused || !op.is_grad) continue;
    for (std::string_view format : op.attr("data_format")->allowed) {
      SCOPED_TRACE(std::string(op.name) + " " + std::string(format));
      const Shape shape = data_shape(std::string(format));
      const std::int64_t channels = format.rfind("NC", 0) == 0 ? shape[1] : shape.back();
      std::mt19937 rng(7);
      const Tensor x = random_rounded(rng, shape, -2, 2, DType::F32).to(DType::F32);
      const Tensor dy = random_rounded(rng, shape, -1, 1, DType::F32).to(DType::F32);
      const Tensor scale = random_rounded(rng, {channels}, 0.5, 2, DType::F32).to(DType::F32);
      std::vector<Result> grads;
      std::vector<double> variance;
      for (ReserveConvention conv : {ReserveConvention::Variance, ReserveConvention::InvStd}) {
        Problem fwd;
        fwd.op = std::string(op.counterpart);
        fwd.convention = conv;
        fwd.inputs = {{"x", x}, {"scale", scale}, {"offset", Tensor(DType::F32, {channels})}};
        fwd.set_attr("data_format", std::string(format));
        const Result f = run_problem(fwd, "cpu-reference");
        const Tensor& rs2 = f.output("reserve_space_2").tensor;
        if (conv == ReserveConvention::Variance) {
          variance = rs2.to_doubles();
        } else {
          for (std::int64_t ch = 0; ch < channels; ++ch)
            EXPECT_NEAR(rs2.get(ch), 1 / std::sqrt(variance[static_cast<std::size_t>(ch)] + 1e-4),
                        1e-5);
        }
        Problem g;
        g.op = std::string(op.name);
        g.convention = conv;
        g.inputs = {{"y_backprop", dy},
                    {"x", x},
                    {"scale", scale},
                    {"reserve_space_1", f.output("reserve_space_1").tensor},
                    {"reserve_space_2", rs2}};
        if (op.version == 3) g.inputs["reserve_space_3"] = f.output("reserve_space_3").tensor;
        g.set_attr("data_format", std::string(format));
        grads.push_back(run_problem(g, "cpu-reference"));
        EXPECT_EQ(testing::find_note(grads.back().notes, "reserve-convention"), nullptr);
        EXPECT_EQ(testing::find_note(grads.back().notes, "reserve-mismatch"), nullptr);
      }
      for (std::size_t i = 0; i < 3; ++i)
        testing::expect_all_near(grads[1].outputs[i].tensor,
                                 grads[0].outputs[i].tensor.to_doubles(), 1e-5,
                                 grads[0].outputs[i].name);
    }
  }
}

}  // namespace
}  // namespace bnscope
