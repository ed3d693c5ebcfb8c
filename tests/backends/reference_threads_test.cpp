// cpu-reference splits its data passes over threads by channel ranges; every output must be
// bitwise what one thread gives, for every op, format, mode and dtype, and what plain loops over
// the whole tensor in float64 give (the formulas as written before the passes were split).

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "ops/bn_math.h"
#include "ops/prepared.h"
#include "ops/sample.h"

namespace bnscope {
namespace {

std::vector<SampleSpec> variants() {
  std::vector<SampleSpec> out;
  for (const OpSpec& op : op_catalog())
    for (DataFormat f : {DataFormat::NHWC, DataFormat::NCHW})
      for (bool training : {true, false})
        for (DType d : {DType::F32, DType::F16, DType::F64}) {
          SampleSpec s;
          s.op = std::string(op.name);
          // Odd sizes: channel ranges of unequal length; enough elements for several threads.
          s.shape = {3, 37, 29, 13};
          s.format = f;
          s.is_training = training;
          s.dtype = d;
          s.seed = 7;
          out.push_back(s);
        }
  return out;
}

std::string describe(const SampleSpec& s) {
  return s.op + " " + std::string(data_format_name(s.format)) + " " +
         std::string(mode_name(s.is_training)) + " " + std::string(dtype_name(s.dtype));
}

void expect_same_bytes(const Result& a, const Result& b, const std::string& what) {
  ASSERT_EQ(a.outputs.size(), b.outputs.size()) << what;
  for (std::size_t i = 0; i < a.outputs.size(); ++i) {
    const Tensor& x = a.outputs[i].tensor;
    const Tensor& y = b.outputs[i].tensor;
    ASSERT_EQ(x.dtype(), y.dtype()) << what << " " << a.outputs[i].name;
    ASSERT_EQ(x.shape(), y.shape()) << what << " " << a.outputs[i].name;
    // memcmp takes no null pointer, even for 0 bytes: empty outputs have no buffer.
    EXPECT_TRUE(x.nbytes() == 0 || std::memcmp(x.raw(), y.raw(), x.nbytes()) == 0)
        << what << ": " << a.outputs[i].name << " differs between thread counts";
  }
}

TEST(ReferenceThreads, EveryOpIsBitwiseTheSameOnAnyThreadCount) {
  for (const SampleSpec& s : variants()) {
    const Problem p = random_problem(s);
    RunContext one;
    one.threads = 1;
    const Result single = run_problem(p, "cpu-reference", one);
    for (int threads : {2, 3, 8}) {
      RunContext many;
      many.threads = threads;
      expect_same_bytes(single, run_problem(p, "cpu-reference", many),
                        describe(s) + " on " + std::to_string(threads) + " threads");
    }
  }
}

// FusedBatchNormGradV3 training as plain loops over the whole tensor, in float64.
std::vector<double> plain_grad_dx(const Prepared& p) {
  const ChannelView& v = p.view;
  const auto dy = p.in("y_backprop").to_doubles();
  const auto x = p.in("x").to_doubles();
  const auto gamma = p.in("scale").to_doubles();
  const auto mu = p.in("reserve_space_1").to_doubles();
  const auto rs2 = p.in("reserve_space_2").to_doubles();
  const auto uc = [](std::int64_t c) { return static_cast<std::size_t>(c); };
  std::vector<double> k(uc(v.channels)), sum_dy(uc(v.channels), 0.0), sum_dy_xc(k.size(), 0.0);
  for (std::int64_t c = 0; c < v.channels; ++c)
    k[uc(c)] = reserve_inv_std(rs2[uc(c)], p.epsilon, p.reserve_is_inv_std());
  for (std::int64_t o = 0; o < v.outer; ++o)
    for (std::int64_t c = 0; c < v.channels; ++c)
      for (std::int64_t i = 0; i < v.inner; ++i) {
        const auto j = static_cast<std::size_t>(v.index(o, c, i));
        sum_dy[uc(c)] += dy[j];
        sum_dy_xc[uc(c)] += dy[j] * (x[j] - mu[uc(c)]);
      }
  const double m = static_cast<double>(v.per_channel());
  std::vector<double> dx(x.size());
  for (std::int64_t o = 0; o < v.outer; ++o)
    for (std::int64_t c = 0; c < v.channels; ++c) {
      const std::size_t cc = uc(c);
      const double gk = gamma[cc] * k[cc];
      for (std::int64_t i = 0; i < v.inner; ++i) {
        const auto j = static_cast<std::size_t>(v.index(o, c, i));
        dx[j] = gk * (dy[j] - sum_dy[cc] / m - (x[j] - mu[cc]) * k[cc] * k[cc] * sum_dy_xc[cc] / m);
      }
    }
  return dx;
}

TEST(ReferenceThreads, GradIsWhatPlainLoopsGive) {
  // 67 channels: the channels-last vector clones' tiles and tails both (grad_channels_last.h).
  for (const Shape& shape : {Shape{5, 23, 17, 11}, Shape{3, 7, 5, 67}})
    for (DataFormat f : {DataFormat::NHWC, DataFormat::NCHW})
      for (DType d : {DType::F32, DType::F16, DType::F64}) {
        SampleSpec s;
        s.shape = shape;
        s.format = f;
        s.dtype = d;
        s.seed = 3;
        const Problem p = random_problem(s);
        const Prepared prepared = prepare(p);
        Tensor want(d, prepared.in("x").shape());
        want.set_doubles(plain_grad_dx(prepared));
        RunContext ctx;
        ctx.threads = 4;
        const Result r = run_problem(p, "cpu-reference", ctx);
        const Tensor& got = r.output("x_backprop").tensor;
        ASSERT_EQ(got.nbytes(), want.nbytes()) << describe(s);
        EXPECT_EQ(std::memcmp(got.raw(), want.raw(), want.nbytes()), 0) << describe(s);
      }
}

}  // namespace
}  // namespace bnscope
