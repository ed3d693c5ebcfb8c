#include "reserve_convert.h"

#include <gtest/gtest.h>

#include <cmath>

#include "cudnn_dims.h"
#include "ops/prepared.h"

namespace bnscope::gpu {
namespace {

TEST(ReserveConvert, RoundTrip) {
  const std::vector<double> var{0.0, 0.25, 11.6667, 57.472};
  const std::vector<double> r = variance_to_inv_std(var, 0.001);
  EXPECT_NEAR(r[0], 1.0 / std::sqrt(0.001), 1e-12);
  EXPECT_NEAR(r[2], 0.292757, 1e-6);  // spec 8.1 case 1, GPU reserve_space_2
  EXPECT_NEAR(r[3], 0.131907, 1e-6);  // spec 8.1 case 6
  const std::vector<double> back = inv_std_to_variance(r, 0.001);
  for (std::size_t i = 0; i < var.size(); ++i) EXPECT_NEAR(back[i], var[i], 1e-9) << i;
}

TEST(ReserveConvert, DegenerateInverseStdIsNaN) {
  const std::vector<double> v = inv_std_to_variance({0.0, INFINITY, NAN}, 0.001);
  for (double x : v) EXPECT_TRUE(std::isnan(x));
}

Problem grad_problem(ReserveConvention conv, bool training, const std::string& format = "NHWC") {
  Problem pb;
  pb.op = "FusedBatchNormGradV3";
  pb.convention = conv;
  pb.attrs["epsilon"] = 0.001;
  pb.attrs["is_training"] = training;
  pb.attrs["data_format"] = format;
  const Shape shape = format == "NHWC" ? Shape{1, 1, 6, 2} : Shape{1, 2, 1, 6};
  pb.inputs["x"] = Tensor(DType::F32, shape);
  pb.inputs["y_backprop"] = Tensor(DType::F32, shape);
  pb.inputs["scale"] = Tensor::from_doubles(DType::F32, {2}, std::vector<double>{4, 4});
  pb.inputs["reserve_space_1"] = Tensor::from_doubles(DType::F32, {2}, std::vector<double>{1, 1});
  pb.inputs["reserve_space_2"] =
      Tensor::from_doubles(DType::F32, {2}, std::vector<double>{57.472, 0.131907});
  return pb;
}

TEST(ReserveConvert, SavedInvStdFollowsTheDeclaredConvention) {
  const std::vector<double> from_var =
      saved_inv_std(prepare(grad_problem(ReserveConvention::Variance, true)));
  EXPECT_NEAR(from_var[0], 0.131907, 1e-6);
  const std::vector<double> as_is =
      saved_inv_std(prepare(grad_problem(ReserveConvention::InvStd, true)));
  EXPECT_NEAR(as_is[0], 57.472, 1e-4);
  EXPECT_NEAR(as_is[1], 0.131907, 1e-6);
  // Freeze mode reads the population variance whatever the convention says.
  const std::vector<double> freeze =
      saved_inv_std(prepare(grad_problem(ReserveConvention::InvStd, false)));
  EXPECT_NEAR(freeze[0], 0.131907, 1e-6);
}

TEST(CudnnDims, FourAndFiveDimensionalLayouts) {
  const Prepared nhwc = prepare(grad_problem(ReserveConvention::Variance, true, "NHWC"));
  CudnnDims d = cudnn_dims(nhwc);
  EXPECT_EQ(d.n, 1);
  EXPECT_EQ(d.c, 2);
  EXPECT_EQ(d.h, 6);
  EXPECT_EQ(d.w, 1);
  const Prepared nchw = prepare(grad_problem(ReserveConvention::Variance, true, "NCHW"));
  d = cudnn_dims(nchw);
  EXPECT_EQ(d.n, 1);
  EXPECT_EQ(d.c, 2);
  EXPECT_EQ(d.h, 6);

  Problem pb = grad_problem(ReserveConvention::Variance, true);
  pb.attrs["data_format"] = std::string("NDHWC");
  pb.inputs["x"] = Tensor(DType::F32, {3, 2, 5, 7, 2});
  pb.inputs["y_backprop"] = Tensor(DType::F32, {3, 2, 5, 7, 2});
  d = cudnn_dims(prepare(pb));
  EXPECT_EQ(d.n, 3);
  EXPECT_EQ(d.c, 2);
  EXPECT_EQ(d.h, 70);
}

// spec 3.4 and 6: TensorFlow transposes NHWC to NCHW around cuDNN except for inference and for
// persistent-mode 16-bit V3 training.
TEST(CudnnDims, NhwcReachesCudnnOnlyWhereTensorFlowPassesIt) {
  auto prepared = [](const char* op, DType t, bool channels_last, bool training) {
    Prepared p;
    p.op = find_op(op);
    p.t = t;
    p.channels_last = channels_last;
    p.is_training = training;
    return p;
  };
  for (bool persistent : {false, true}) {
    EXPECT_FALSE(
        cudnn_takes_nhwc(prepared("FusedBatchNormGradV3", DType::F32, true, true), persistent));
    EXPECT_FALSE(
        cudnn_takes_nhwc(prepared("FusedBatchNormGradV3", DType::F16, false, true), persistent));
    EXPECT_FALSE(
        cudnn_takes_nhwc(prepared("FusedBatchNormV2", DType::BF16, true, true), persistent));
    EXPECT_TRUE(
        cudnn_takes_nhwc(prepared("FusedBatchNormV3", DType::F32, true, false), persistent));
    EXPECT_FALSE(
        cudnn_takes_nhwc(prepared("FusedBatchNormV3", DType::F32, false, false), persistent));
  }
  EXPECT_FALSE(cudnn_takes_nhwc(prepared("FusedBatchNormGradV3", DType::F16, true, true), false));
  EXPECT_TRUE(cudnn_takes_nhwc(prepared("FusedBatchNormGradV3", DType::F16, true, true), true));
  EXPECT_TRUE(cudnn_takes_nhwc(prepared("FusedBatchNormV3", DType::BF16, true, true), true));
}

}  // namespace
}  // namespace bnscope::gpu
