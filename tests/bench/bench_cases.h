#pragma once
// The shape set every CPU benchmark runs (ours, oneDNN, and scripts/peer_bench.py, which keeps
// a copy of this list): ResNet-50 batch-32 batch-norm layers in both layouts, plus
// small-channel channels-last shapes where per-row peers are slow. Names are
// "NxHxWxC/NHWC/train/float32" (NCHW shapes print as NxCxHxW) so results join by name.

#include <string>
#include <vector>

#include "tensor/dtype.h"
#include "tensor/shape.h"

namespace bnscope {

struct BenchCase {
  Shape shape;  // always N, H, W, C
  bool nchw;
  bool training;
  DType dtype;
  bool global = false;  // BatchNormWithGlobalNormalizationGrad (NHWC, no training mode)
};

inline std::vector<BenchCase> bench_cases() {
  const std::vector<Shape> resnet = {{32, 112, 112, 64}, {32, 56, 56, 64},   {32, 56, 56, 256},
                                     {32, 28, 28, 512},  {32, 14, 14, 1024}, {32, 7, 7, 2048}};
  const std::vector<Shape> small_c = {
      {32, 224, 224, 1}, {32, 224, 224, 3}, {32, 112, 112, 16}, {32, 56, 56, 17}};
  std::vector<BenchCase> out;
  for (const Shape& s : resnet)
    for (bool nchw : {false, true}) {
      for (DType t : {DType::F32, DType::BF16, DType::F16}) out.push_back({s, nchw, true, t});
      out.push_back({s, nchw, false, DType::F32});
    }
  for (const Shape& s : resnet) out.push_back({s, false, false, DType::F32, true});
  for (const Shape& s : small_c)
    for (bool training : {true, false}) out.push_back({s, false, training, DType::F32});
  return out;
}

inline std::string case_name(const BenchCase& c) {
  const auto s = [](std::int64_t v) { return std::to_string(v); };
  const Shape& x = c.shape;
  const std::string dims = c.nchw ? s(x[0]) + "x" + s(x[3]) + "x" + s(x[1]) + "x" + s(x[2])
                                  : s(x[0]) + "x" + s(x[1]) + "x" + s(x[2]) + "x" + s(x[3]);
  return dims + "/" + (c.nchw ? "NCHW" : "NHWC") + "/" +
         (c.global     ? "global"
          : c.training ? "train"
                       : "freeze") +
         "/" + std::string(dtype_name(c.dtype));
}

}  // namespace bnscope
