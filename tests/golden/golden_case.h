#pragma once
// One TensorFlow-made golden case (tests/golden/data/*.npz, written by make_golden.py): the
// Problem to run, TensorFlow's outputs and, for cases TensorFlow refuses, its error message.

#include <map>
#include <string>
#include <vector>

#include "ops/problem.h"

namespace bnscope {

struct GoldenOutput {
  Tensor tensor;
  DType tf_dtype = DType::F32;  // bfloat16 arrives as float32 holding exact bfloat16 values
};

struct GoldenCase {
  std::string name;  // file name without .npz
  Problem problem;
  std::map<std::string, GoldenOutput> outputs;  // by TensorFlow's output name
  // All must appear in bnscope's error or TfWouldReject note; empty when TensorFlow ran the op.
  std::vector<std::string> expected_error_parts;
  std::string tf_version;
};

std::string golden_data_dir();
std::vector<std::string> golden_case_names();  // sorted file names without .npz
GoldenCase load_golden_case(const std::string& name);

}  // namespace bnscope
