// prepare() given an earlier prepared problem takes its conversion of an input (float32 data
// run as float16) when the input is the same buffer in the same type, shape and layout, and
// converts again whenever any of them changed.

#include <gtest/gtest.h>

#include "ops/prepared.h"
#include "ops/sample.h"
#include "tensor/layout.h"

// A namespace of its own: the suite's files are compiled together (unity build).
namespace bnscope::prepare_conversion_test {
namespace {

Problem float32_run_as(DType t) {
  SampleSpec spec;
  spec.shape = {2, 3, 5, 4};
  Problem p = random_problem(spec);
  p.dtype = t;
  return p;
}

// The values float32 x takes in `t`, converted here element by element.
std::vector<double> rounded(const Tensor& x, DType t) {
  std::vector<double> v;
  for (std::int64_t i = 0; i < x.numel(); ++i) {
    const auto f = static_cast<float>(x.get(i));
    v.push_back(t == DType::F16 ? half_bits_to_float(float_to_half_bits(f))
                                : bf16_bits_to_float(float_to_bf16_bits(f)));
  }
  return v;
}

TEST(PrepareConversion, TheSameBufferIsConvertedOnce) {
  const Problem p = float32_run_as(DType::F16);
  const Prepared first = prepare(p);
  const Tensor& x = first.in("x");
  ASSERT_EQ(x.dtype(), DType::F16);
  EXPECT_EQ(x.to_doubles(), rounded(p.inputs.at("x"), DType::F16));
  EXPECT_TRUE(prepare(p, &first).in("x").shares_storage_with(x));
  EXPECT_TRUE(prepare(p, &first).in("y_backprop").shares_storage_with(first.in("y_backprop")));
  EXPECT_FALSE(prepare(p).in("x").shares_storage_with(x)) << "nothing to take it from";
}

TEST(PrepareConversion, AWrittenSourceIsConvertedAgain) {
  Problem p = float32_run_as(DType::F16);
  const Prepared first = prepare(p);
  p.inputs.at("x").set(0, 3.0);  // the only handle the problem has: a write in place
  const Prepared again = prepare(p, &first);
  EXPECT_FALSE(again.in("x").shares_storage_with(first.in("x")));
  EXPECT_EQ(again.in("x").get(0), 3.0);
  EXPECT_EQ(again.in("x").to_doubles(), rounded(p.inputs.at("x"), DType::F16));
  EXPECT_NE(first.in("x").get(0), 3.0) << "the earlier conversion is of the earlier values";
}

TEST(PrepareConversion, AnotherTypeOrLayoutIsConvertedAgain) {
  const Problem p = float32_run_as(DType::F16);
  const Prepared first = prepare(p);
  Problem bf16 = p;
  bf16.dtype = DType::BF16;
  const Prepared b = prepare(bf16, &first);
  EXPECT_EQ(b.in("x").dtype(), DType::BF16);
  EXPECT_EQ(b.in("x").to_doubles(), rounded(p.inputs.at("x"), DType::BF16));

  // The same bytes declared in the other layout (as after a layout change in place, which
  // rewrites the buffer the earlier conversion was made from).
  Problem nchw = p;
  nchw.attrs["data_format"] = std::string("NCHW");
  for (const char* name : {"x", "y_backprop"})
    nchw.inputs.at(name) = p.inputs.at(name).reshaped({2, 4, 3, 5});
  const Prepared c = prepare(nchw, &first);
  EXPECT_FALSE(c.in("x").shares_storage_with(first.in("x")));
  EXPECT_EQ(c.in("x").shape(), (Shape{2, 4, 3, 5}));
}

TEST(PrepareConversion, AnInputTakenAsGivenHoldsNoSource) {
  SampleSpec spec;
  spec.shape = {2, 3, 5, 4};
  const Prepared p = prepare(random_problem(spec));
  for (const Tensor& t : p.converted_from) EXPECT_EQ(t.storage_holders(), 0);
}

}  // namespace
}  // namespace bnscope::prepare_conversion_test
