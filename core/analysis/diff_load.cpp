// load_expected_outputs (analysis/diff.h): expected outputs from .npy/.npz files.

#include <filesystem>

#include "analysis/diff.h"
#include "io/npy.h"
#include "io/npz.h"
#include "tensor/error.h"

namespace bnscope {

std::vector<OutputTensor> load_expected_outputs(const std::string& path, const OpSpec& op) {
  namespace fs = std::filesystem;
  std::vector<OutputTensor> out;
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    for (const ArgSpec& o : op.outputs)
      for (const std::string& stem : {std::string(o.name), "out_" + std::string(o.name)}) {
        const fs::path f = fs::path(path) / (stem + ".npy");
        if (!fs::exists(f, ec)) continue;
        out.push_back({std::string(o.name), read_npy(f.string()), true, 0});
        break;
      }
  } else if (path.size() > 4 && path.substr(path.size() - 4) == ".npy") {
    // One file: the output it is named after.
    const std::string stem = fs::path(path).stem().string();
    for (const ArgSpec& o : op.outputs)
      if (stem == o.name || stem == "out_" + std::string(o.name))
        out.push_back({std::string(o.name), read_npy(path), true, 0});
    if (out.empty())
      fail(ErrorParts{
          Option::Against, path, "a single .npy is named after the output it holds",
          "the name of an output of " + std::string(op.name) + " (e.g. x_backprop.npy)"});
  } else {
    // Only members named after an output are inflated.
    std::map<std::string, Tensor> members = read_npz(path, [&](const std::string& key) {
      for (const ArgSpec& o : op.outputs)
        if (key == o.name || key == "out_" + std::string(o.name)) return true;
      return false;
    });
    for (const ArgSpec& o : op.outputs)
      for (const std::string& key : {"out_" + std::string(o.name), std::string(o.name)})
        if (auto it = members.find(key); it != members.end()) {
          out.push_back({std::string(o.name), std::move(it->second), true, 0});
          break;
        }
  }
  if (out.empty())
    fail(ErrorParts{Option::Against, path,
                    "no member or file named after an output of " + std::string(op.name),
                    "e.g. x_backprop or out_x_backprop"});
  return out;
}

}  // namespace bnscope
