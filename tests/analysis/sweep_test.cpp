// The sweep over the committed sample captures: every layer agrees with TensorFlow's recorded
// outputs on both CPU backends; a layer file that lies or breaks is reported in its row.

#include "analysis/sweep.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "io/npz.h"
#include "ops/problem_io.h"
#include "tensor/error.h"

namespace bnscope {
namespace {

namespace fs = std::filesystem;

std::string sample(const std::string& name) {
  return std::string(BNSCOPE_SOURCE_DIR) + "/resources/captures/" + name;
}

// A copy of a sample capture that a test may tamper with.
struct CaptureCopy {
  fs::path dir;
  explicit CaptureCopy(const std::string& name) {
    dir = fs::temp_directory_path() /
          ("bnscope-sweep-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
           "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    fs::copy(sample(name), dir);
  }
  ~CaptureCopy() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::string file(int layer) const {
    return (dir / read_capture_folder(dir.string()).layers[layer].file).string();
  }
};

TEST(Sweep, SampleCapturesAgreeWithTensorFlowOnBothCpuBackends) {
  for (const char* name : {"sample", "sample_fused"})
    for (const char* backend : {"cpu", "cpu-reference"}) {
      SweepRequest req;
      req.backends = {backend};
      const SweepResult s = run_sweep(read_capture_folder(sample(name)), req);
      EXPECT_EQ(s.reference, kAgainstTensorFlow);
      ASSERT_FALSE(s.rows.empty());
      for (const SweepRow& r : s.rows) {
        EXPECT_TRUE(r.passed()) << name << " " << backend << " " << r.layer.name << ": "
                                << r.verdict() << " " << r.error;
        ASSERT_EQ(r.result.diff.comparisons.size(), 1u);
        EXPECT_EQ(r.result.diff.comparisons[0].candidate, backend);
        // Each of the three gradients was compared with TensorFlow's.
        int compared = 0;
        for (const SweepOutput& o : r.outputs) compared += o.compared;
        EXPECT_EQ(compared, 3) << r.layer.name;
      }
      EXPECT_TRUE(s.passed());
    }
}

TEST(Sweep, SampleHasChannelsLastFirstAndHalfLayers) {
  const Capture c = read_capture_folder(sample("sample"));
  ASSERT_EQ(c.layers.size(), 3u);
  EXPECT_EQ(c.layers[0].data_format, "NHWC");
  EXPECT_EQ(c.layers[1].data_format, "NCHW");
  EXPECT_EQ(c.layers[2].dtypes.at("x"), "float16");
  const Capture f = read_capture_folder(sample("sample_fused"));
  for (const CaptureLayer& l : f.layers) EXPECT_EQ(l.captured, "fused_op");
}

TEST(Sweep, AgainstABackend) {
  SweepRequest req;
  req.against = "cpu-reference";
  req.backends = {"cpu"};
  const SweepResult s = run_sweep(read_capture_folder(sample("sample")), req);
  EXPECT_EQ(s.reference, "cpu-reference");
  EXPECT_TRUE(s.passed());
  for (const SweepRow& r : s.rows) EXPECT_EQ(r.result.reference, "cpu-reference");
}

TEST(Sweep, BadRequestFailsBeforeAnyLayer) {
  const Capture c = read_capture_folder(sample("sample"));
  SweepRequest req;
  req.backends = {"no-such-backend"};
  EXPECT_THROW(run_sweep(c, req), Error);
  req.backends = {"cpu"};
  req.against = "cpu";
  EXPECT_THROW(run_sweep(c, req), Error);
}

TEST(Sweep, BrokenLayerFileIsReportedInItsRowAndTheOthersRun) {
  CaptureCopy copy("sample");
  { std::ofstream(copy.file(1), std::ios::binary | std::ios::trunc) << "not an npz"; }
  const SweepResult s = run_sweep(read_capture_folder(copy.dir.string()), {});
  ASSERT_EQ(s.rows.size(), 3u);
  EXPECT_TRUE(s.rows[0].passed());
  EXPECT_TRUE(s.rows[1].broken());
  EXPECT_NE(s.rows[1].error.find(s.rows[1].layer.file), std::string::npos) << s.rows[1].error;
  EXPECT_TRUE(s.rows[2].passed());
  EXPECT_EQ(s.broken(), 1);
  EXPECT_FALSE(s.passed());
  EXPECT_EQ(s.worst_first().front(), 1u);
}

TEST(Sweep, LayerFileThatDisagreesWithTheManifestIsBroken) {
  CaptureCopy copy("sample");
  // Layer 0's file replaced by layer 1's (NCHW, other shape): same op, different tensors.
  fs::copy_file(copy.file(1), copy.file(0), fs::copy_options::overwrite_existing);
  const SweepResult s = run_sweep(read_capture_folder(copy.dir.string()), {});
  EXPECT_TRUE(s.rows[0].broken());
  EXPECT_NE(s.rows[0].error.find("does not match the manifest"), std::string::npos)
      << s.rows[0].error;
  EXPECT_FALSE(s.rows[1].broken());
}

// The sweep reports what the pipeline finds: a problem file whose reserve space is declared in
// the wrong convention disagrees with TensorFlow, and the cause finder names the convention.
// (Layer 1 follows a ReLU: its variance is far from 1, so the two conventions differ.)
TEST(Sweep, DisagreementCarriesTheLikelyCause) {
  CaptureCopy copy("sample");
  const std::string path = copy.file(1);
  Problem p = load_problem(path);
  p.convention = ReserveConvention::InvStd;
  std::vector<std::pair<std::string, Tensor>> members(p.inputs.begin(), p.inputs.end());
  for (const auto& [name, t] : read_npz(path))
    if (name.starts_with(kExpectedPrefix)) members.emplace_back(name, t);
  write_npz(path, members, {{kProblemMember, problem_to_json(p)}});
  SweepRequest req;
  req.backends = {"cpu"};
  const SweepResult s = run_sweep(read_capture_folder(copy.dir.string()), req);
  const SweepRow& r = s.rows[1];
  ASSERT_FALSE(r.broken()) << r.error;
  EXPECT_FALSE(r.passed());
  EXPECT_EQ(r.verdict(), "DISAGREE (cpu)");
  ASSERT_FALSE(r.result.causes.empty());
  EXPECT_EQ(r.result.causes.front().code, "reserve-convention");
  EXPECT_NE(r.likely_cause().find("(cpu)"), std::string::npos) << r.likely_cause();
  EXPECT_EQ(s.disagreeing(), 1);
  EXPECT_EQ(s.worst_first().front(), 1u);
}

// TensorFlow made layer 1's outputs with its own epsilon; the problem file says 0.5. The
// sweep's row (the Layers view's cause column) names the epsilon cause with TensorFlow's value.
TEST(Sweep, LayerWithAnotherEpsilonNamesTheFittedOne) {
  CaptureCopy copy("sample");
  const std::string path = copy.file(1);
  Problem p = load_problem(path);
  const double tf_eps = attr_float(p, "epsilon");
  p.attrs["epsilon"] = 0.5;
  std::vector<std::pair<std::string, Tensor>> members(p.inputs.begin(), p.inputs.end());
  for (const auto& [name, t] : read_npz(path))
    if (name.starts_with(kExpectedPrefix)) members.emplace_back(name, t);
  write_npz(path, members, {{kProblemMember, problem_to_json(p)}});
  SweepRequest req;
  req.backends = {"cpu"};
  const SweepResult s = run_sweep(read_capture_folder(copy.dir.string()), req);
  const SweepRow& r = s.rows[1];
  ASSERT_FALSE(r.broken()) << r.error;
  ASSERT_FALSE(r.passed());
  ASSERT_FALSE(r.result.causes.empty());
  const Cause& c = r.result.causes.front();
  EXPECT_EQ(c.code, "epsilon-mismatch") << c.title;
  EXPECT_TRUE(c.resolves);
  EXPECT_NEAR(c.fitted, tf_eps, 0.1 * tf_eps);
  EXPECT_NE(r.likely_cause().find("epsilon"), std::string::npos) << r.likely_cause();
}

}  // namespace
}  // namespace bnscope
