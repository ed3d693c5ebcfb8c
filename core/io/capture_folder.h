#pragma once
// A capture folder, as bnscope-capture writes it: manifest.json plus one problem file per
// batch-normalization layer, each carrying TensorFlow's outputs as out_<output> members.
//   {"bnscope_capture": 1, "tensorflow": "2.17.0", "keras": "3.5.0", "device": "cpu",
//    "model": "cnn", "dtype_policy": "mixed_float16", "loss": "mse",
//    "layers": [{"index": 0, "name": "bn_a", "captured": "keras_autodiff",
//                "op": "FusedBatchNormGradV3", "data_format": "NHWC", "convention": "variance",
//                "shapes": {"x": [4, 8, 8, 3], ...}, "dtypes": {"x": "float16", ...},
//                "file": "layer_000_bn_a.npz"}, ...],
//    "skipped": [{"name": "bn_z", "reason": "..."}]}
// Reading checks that the manifest and the folder agree (every listed file present, no .npz
// left unlisted); the layer files themselves are opened one by one by whoever runs them, so one
// broken file does not hide the others.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace bnscope {

inline constexpr const char* kCaptureManifest = "manifest.json";

struct CaptureLayer {
  int index = 0;
  std::string name;
  std::string captured;  // "fused_op" (the grad op TensorFlow ran) or "keras_autodiff"
  std::string op;
  std::string data_format;
  std::string convention;
  std::map<std::string, std::vector<std::int64_t>> shapes;  // inputs and out_<output>s
  std::map<std::string, std::string> dtypes;
  std::string file;  // name inside the folder
  std::string path;  // folder / file
};

struct CaptureSkip {
  std::string name;
  std::string reason;
};

struct Capture {
  std::string dir;
  std::string tensorflow;
  std::string keras;
  std::string device;
  std::string model;
  std::string dtype_policy;
  std::string loss;
  std::vector<CaptureLayer> layers;  // manifest order
  std::vector<CaptureSkip> skipped;
};

// Throws Error (InvalidArgument) naming the folder or manifest and what was expected.
Capture read_capture_folder(const std::string& dir);
bool is_capture_folder(const std::string& dir);  // a directory holding manifest.json

}  // namespace bnscope
