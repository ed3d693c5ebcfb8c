#include "problem_maker.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "ops/moments.h"
#include "tensor/layout.h"
#include "tensor/seeded_rng.h"

namespace bnscope::testing {

namespace {

bool channels_first(const std::string& format) {
  return format == "NCHW" || format == "NCDHW";
}

Tensor random_tensor(SeededRng& rng, DType dtype, const Shape& shape, double lo, double hi) {
  std::vector<double> v(static_cast<std::size_t>(num_elements(shape)));
  for (double& d : v) d = rng.uniform(lo, hi);
  return Tensor::from_doubles(dtype, shape, v);
}

// Biased batch mean and variance of x (as stored, i.e. after rounding to its dtype).
void batch_stats(const Tensor& x, bool channels_last, std::vector<double>& mean,
                 std::vector<double>& var) {
  ChannelMoments m = channel_moments_biased(x.to_doubles(), channel_view(x.shape(), channels_last));
  mean = std::move(m.mean);
  var = std::move(m.biased_variance);
}

}  // namespace

Variant sweep_variant(const OpSpec* op, const std::string& format, bool training, DType dtype,
                      const Shape& nhwc, std::uint32_t seed) {
  return {
      .op = op, .format = format, .training = training, .dtype = dtype, .nhwc = nhwc, .seed = seed};
}

std::string describe(const Variant& v) {
  std::string s = std::string(v.op->name) + " " + v.format + " " +
                  std::string(mode_name(v.training)) + " " + std::string(dtype_name(v.dtype)) +
                  " " + shape_str(v.nhwc);
  if (v.inv_std) s += " inv_std";
  if (v.avg_factor != 1.0) s += " f=" + std::to_string(v.avg_factor);
  return s;
}

Problem make_problem(const Variant& v) {
  const OpSpec& op = *v.op;
  Problem pb;
  pb.op = std::string(op.name);
  pb.dtype = v.dtype;
  SeededRng rng(v.seed);
  const bool global = op.family == OpFamily::GlobalNorm;
  const bool first = !global && channels_first(v.format);
  Shape shape = v.nhwc;
  if (first) {
    shape.insert(shape.begin() + 1, shape.back());
    shape.pop_back();
  }
  const std::int64_t C = v.nhwc.back();
  const Shape cs{C};
  if (global) {
    pb.set_attr("variance_epsilon", "0.001");
    pb.set_attr("scale_after_normalization", v.training ? "true" : "false");
  } else {
    pb.set_attr("data_format", v.format);
    pb.set_attr("is_training", v.training ? "true" : "false");
    if (op.has_attr("exponential_avg_factor"))
      pb.set_attr("exponential_avg_factor", std::to_string(v.avg_factor));
  }
  const DType u = resolve_arg_type(op, ArgType::U, v.dtype);
  if (v.inv_std) pb.convention = ReserveConvention::InvStd;
  const Tensor x = random_tensor(rng, v.dtype, shape, -1.0, 4.0);
  for (const ArgSpec& a : op.inputs) {
    const std::string name(a.name);
    const DType dt = resolve_arg_type(op, a.type, v.dtype);
    if (name == "x" || name == "t")
      pb.inputs[name] = x;
    else if (name == "y_backprop" || name == "backprop")
      pb.inputs[name] = random_tensor(rng, dt, shape, -2.0, 2.0);
    else if (name == "scale" || name == "gamma")
      pb.inputs[name] = random_tensor(rng, dt, cs, 0.5, 1.5);
    else if (name == "offset" || name == "beta")
      pb.inputs[name] = random_tensor(rng, dt, cs, -1.0, 1.0);
    else if (name == "mean" || name == "m")
      pb.inputs[name] = random_tensor(rng, dt, cs, 1.0, 2.0);
    else if (name == "variance" || name == "v")
      pb.inputs[name] = random_tensor(rng, dt, cs, 0.5, 2.5);
  }
  if (op.family == OpFamily::Fused && op.is_grad) {
    std::vector<double> mean, var;
    if (v.training) {
      batch_stats(x, !first, mean, var);
      if (v.inv_std)
        for (double& s : var) s = 1.0 / std::sqrt(s + static_cast<double>(1e-4f));
      pb.inputs["reserve_space_1"] = Tensor::from_doubles(u, cs, mean);
      pb.inputs["reserve_space_2"] = Tensor::from_doubles(u, cs, var);
    } else {
      pb.inputs["reserve_space_1"] = random_tensor(rng, u, cs, 1.0, 2.0);
      pb.inputs["reserve_space_2"] = random_tensor(rng, u, cs, 0.5, 2.5);
    }
  }
  return pb;
}

void expect_bitwise_equal(const Result& a, const Result& b, const std::string& what) {
  ASSERT_EQ(a.outputs.size(), b.outputs.size()) << what;
  for (std::size_t i = 0; i < a.outputs.size(); ++i) {
    if (!a.outputs[i].defined) continue;
    const Tensor& x = a.outputs[i].tensor;
    const Tensor& y = b.outputs[i].tensor;
    ASSERT_EQ(x.nbytes(), y.nbytes()) << what << ": " << a.outputs[i].name;
    if (x.nbytes() == 0) continue;  // raw() is null then, and memcmp must not see null
    EXPECT_EQ(std::memcmp(x.raw(), y.raw(), x.nbytes()), 0) << what << ": " << a.outputs[i].name;
  }
}

}  // namespace bnscope::testing
