// The capture folder reader: the manifest and the folder must agree before any layer is run.

#include "io/capture_folder.h"

#include <fstream>

#include "io/atomic_file.h"
#include "io/npz.h"
#include "io_test_util.h"
#include "ops/problem_io.h"
#include "ops/sample.h"

namespace bnscope::test {
namespace {

std::string layer_json(int index, const std::string& name, const std::string& file) {
  return "{\"index\": " + std::to_string(index) + ", \"name\": \"" + name +
         "\", \"captured\": \"keras_autodiff\", \"op\": \"FusedBatchNormGradV3\", "
         "\"data_format\": \"NHWC\", \"convention\": \"variance\", "
         "\"shapes\": {\"x\": [2, 2, 2, 3]}, \"dtypes\": {\"x\": \"float32\"}, \"file\": \"" +
         file + "\"}";
}

// Two layers, both files present.
struct CaptureFixture {
  ScratchDir dir;
  CaptureFixture() {
    SampleSpec spec;
    spec.shape = {2, 2, 2, 3};
    save_problem(dir / "layer_000_a.npz", random_problem(spec));
    save_problem(dir / "layer_001_b.npz", random_problem(spec));
    manifest({layer_json(0, "a", "layer_000_a.npz"), layer_json(1, "b", "layer_001_b.npz")});
  }
  void manifest(const std::vector<std::string>& layers,
                const std::string& head = "\"bnscope_capture\": 1") {
    std::string list;
    for (const std::string& l : layers) list += (list.empty() ? "" : ", ") + l;
    write_file_atomic(dir / "manifest.json",
                      "{" + head + ", \"tensorflow\": \"2.17.0\", \"keras\": \"3.5.0\", " +
                          "\"device\": \"CPU\", \"model\": \"m\", \"dtype_policy\": " +
                          "\"float32\", \"layers\": [" + list + "], \"skipped\": []}");
  }
};

TEST(CaptureFolder, ReadsManifestInOrder) {
  CaptureFixture f;
  const Capture c = read_capture_folder(f.dir.path().string());
  ASSERT_EQ(c.layers.size(), 2u);
  EXPECT_EQ(c.tensorflow, "2.17.0");
  EXPECT_EQ(c.model, "m");
  EXPECT_EQ(c.layers[0].name, "a");
  EXPECT_EQ(c.layers[1].index, 1);
  EXPECT_EQ(c.layers[1].captured, "keras_autodiff");
  EXPECT_EQ(c.layers[0].shapes.at("x"), (std::vector<std::int64_t>{2, 2, 2, 3}));
  EXPECT_EQ(c.layers[0].dtypes.at("x"), "float32");
  EXPECT_EQ(c.layers[1].path, f.dir / "layer_001_b.npz");
  EXPECT_TRUE(is_capture_folder(f.dir.path().string()));
}

TEST(CaptureFolder, MissingListedFileIsNamed) {
  CaptureFixture f;
  std::filesystem::remove(f.dir / "layer_001_b.npz");
  expect_error([&] { read_capture_folder(f.dir.path().string()); },
               {"layer_001_b.npz", "no such file"});
}

TEST(CaptureFolder, UnlistedProblemFileIsNamed) {
  CaptureFixture f;
  std::filesystem::copy_file(f.dir / "layer_000_a.npz", f.dir / "stray.npz");
  expect_error([&] { read_capture_folder(f.dir.path().string()); },
               {"stray.npz", "not listed in the manifest"});
}

TEST(CaptureFolder, ManifestErrors) {
  CaptureFixture f;
  f.manifest({layer_json(0, "a", "layer_000_a.npz"), layer_json(1, "b", "layer_001_b.npz")},
             "\"bnscope_capture\": 2");
  expect_error([&] { read_capture_folder(f.dir.path().string()); }, {"\"bnscope_capture\": 1"});
  f.manifest({layer_json(0, "a", "../layer_000_a.npz")});
  expect_error([&] { read_capture_folder(f.dir.path().string()); },
               {"layers[0]", "inside the capture folder"});
  f.manifest({layer_json(0, "a", "layer_000_a.npz"), layer_json(0, "b", "layer_001_b.npz")});
  expect_error([&] { read_capture_folder(f.dir.path().string()); }, {"index 0"});
  f.manifest({layer_json(0, "a", "layer_000_a.npz"), layer_json(1, "b", "layer_000_a.npz")});
  expect_error([&] { read_capture_folder(f.dir.path().string()); }, {"more than one layer"});
  f.manifest({});
  expect_error([&] { read_capture_folder(f.dir.path().string()); }, {"empty"});
  // NaN and numbers past any int are refused as such (Python's json writes NaN).
  for (const char* bad : {"NaN", "1e300", "-Infinity", "2.5"}) {
    std::string layer = layer_json(0, "a", "layer_000_a.npz");
    layer.replace(layer.find("\"index\": 0"), 10, std::string("\"index\": ") + bad);
    f.manifest({layer, layer_json(1, "b", "layer_001_b.npz")});
    expect_error([&] { read_capture_folder(f.dir.path().string()); }, {"whole number"});
    std::string shaped = layer_json(0, "a", "layer_000_a.npz");
    shaped.replace(shaped.find("[2, 2, 2, 3]"), 12, std::string("[2, ") + bad + ", 2, 3]");
    f.manifest({shaped, layer_json(1, "b", "layer_001_b.npz")});
    expect_error([&] { read_capture_folder(f.dir.path().string()); }, {"list of sizes"});
  }
  write_file_atomic(f.dir / "manifest.json", "{\"bnscope_capture\": 1, \"layers\": [");
  expect_error([&] { read_capture_folder(f.dir.path().string()); }, {"manifest.json"});
}

TEST(CaptureFolder, NotACapture) {
  ScratchDir d;
  EXPECT_FALSE(is_capture_folder(d.path().string()));
  expect_error([&] { read_capture_folder(d.path().string()); }, {"no manifest.json"});
  expect_error([&] { read_capture_folder(d / "nope"); }, {"no such folder"});
  write_file_atomic(d / "file", "not a folder");
  expect_error([&] { read_capture_folder(d / "file"); }, {"not a folder"});
}

// Expected outputs travel in the problem file as out_<output>; they are not inputs.
TEST(CaptureFolder, ExpectedOutputMembersAreNotInputs) {
  ScratchDir d;
  SampleSpec spec;
  spec.shape = {2, 2, 2, 3};
  const Problem p = random_problem(spec);
  std::vector<std::pair<std::string, Tensor>> members(p.inputs.begin(), p.inputs.end());
  members.emplace_back("out_x_backprop", p.inputs.at("x"));
  write_npz(d / "p.npz", members, {{kProblemMember, problem_to_json(p)}});
  const Problem back = load_problem(d / "p.npz");
  EXPECT_EQ(back.inputs.size(), p.inputs.size());
  EXPECT_FALSE(back.inputs.count("out_x_backprop"));
}

}  // namespace
}  // namespace bnscope::test
