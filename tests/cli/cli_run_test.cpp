// bnscope-cli run: good problems write every output; bad ones exit 2 with one line and no files.

#include <gtest/gtest.h>

#include "cli_harness.h"
#include "engine/engine.h"
#include "io/npy.h"
#include "io/npz.h"
#include "ops/sample.h"

namespace bnscope::test {

namespace {

Problem sample(const std::string& op = "FusedBatchNormGradV3", DataFormat f = DataFormat::NHWC) {
  SampleSpec s;
  s.op = op;
  s.format = f;
  s.shape = {2, 3, 4, 5};
  return random_problem(s);
}

void expect_bad_input(const CliRun& r, const std::string& fragment, const TempDir& dir) {
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find(fragment), std::string::npos) << "stderr: " << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_TRUE(dir.files("out").empty()) << "outputs left behind";
}

}  // namespace

TEST(CliRun, WritesEveryOutputWithTensorFlowNamesAndTheEngineValues) {
  for (const char* fmt : {"NHWC", "NCHW"}) {
    TempDir dir;
    const Problem p = sample("FusedBatchNormGradV3", *parse_data_format(fmt));
    const CliRun r = run_cli(with({"run", "--op", p.op, "--attr", std::string("data_format=") + fmt,
                                   "--attr", "epsilon=0.001", "--out", dir.path("out")},
                                  input_flags(p, dir)));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(
        dir.files("out"),
        (std::vector<std::string>{"offset_backprop.npy", "reserve_space_4.npy",
                                  "reserve_space_5.npy", "scale_backprop.npy", "x_backprop.npy"}));
    const Result expected = run_problem(p, "cpu");
    for (const OutputTensor& o : expected.outputs) {
      const Tensor got = read_npy(dir.path("out/" + o.name + ".npy"));
      ASSERT_EQ(got.shape(), o.tensor.shape()) << o.name;
      EXPECT_EQ(got.to_doubles(), o.tensor.to_doubles()) << o.name;
    }
    EXPECT_EQ(read_npy(dir.path("out/reserve_space_4.npy")).shape(), (Shape{0}));
  }
}

TEST(CliRun, GlobalNormalizationGradUsesItsOwnOutputNames) {
  TempDir dir;
  const Problem p = sample("BatchNormWithGlobalNormalizationGrad");
  const CliRun r = run_cli(with({"run", "--op", p.op, "--attr", "variance_epsilon=0.001", "--attr",
                                 "scale_after_normalization=true", "--out", dir.path("out")},
                                input_flags(p, dir)));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(dir.files("out"),
            (std::vector<std::string>{"db.npy", "dg.npy", "dm.npy", "dv.npy", "dx.npy"}));
  EXPECT_NE(r.err.find("TensorFlow would reject this"), std::string::npos) << r.err;
}

TEST(CliRun, TakesInputsFromAnNpzAndFromNpzMembers) {
  TempDir dir;
  const Problem p = sample();
  std::vector<std::pair<std::string, Tensor>> members(p.inputs.begin(), p.inputs.end());
  write_npz(dir.path("captured.npz"), members);
  const CliRun all = run_cli({"run", "--op", p.op, "--inputs", dir.path("captured.npz"), "--attr",
                              "epsilon=0.001", "--out", dir.path("out")});
  ASSERT_EQ(all.status, 0) << all.err;
  const CliRun one = run_cli({"run", "--op", p.op, "--inputs", dir.path("captured.npz"), "--input",
                              "x=" + dir.path("captured.npz") + ":x", "--attr", "epsilon=0.001",
                              "--out", dir.path("out2")});
  ASSERT_EQ(one.status, 0) << one.err;
  EXPECT_EQ(read_npy(dir.path("out/x_backprop.npy")).to_doubles(),
            read_npy(dir.path("out2/x_backprop.npy")).to_doubles());
}

TEST(CliRun, SampleFlagRunsWithoutInputs) {
  TempDir dir;
  const CliRun r = run_cli({"run", "--op", "FusedBatchNormV3", "--sample", "--attr",
                            "is_training=false", "--out", dir.path("out")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("undefined"), std::string::npos) << r.out;  // inference reserve spaces
  EXPECT_EQ(dir.files("out").size(), 6u);
}

TEST(CliRun, StrictTurnsTensorFlowRejectionsIntoErrors) {
  TempDir dir;
  const CliRun r =
      run_cli({"run", "--op", "FusedBatchNormGradV3", "--sample", "--attr", "data_format=NCHW",
               "--attr", "is_training=false", "--strict", "--out", dir.path("out")});
  expect_bad_input(r, "only support NHWC", dir);
}

TEST(CliRun, BadInputsExitTwoWithOneLineAndNoFiles) {
  TempDir dir;
  const Problem p = sample();
  const std::vector<std::string> good =
      with({"run", "--op", p.op, "--out", dir.path("out")}, input_flags(p, dir));
  expect_bad_input(run_cli(with_input(good, "x", dir.path("missing.npy"))), "missing.npy", dir);

  std::FILE* f = std::fopen(dir.path("garbage.npy").c_str(), "wb");
  std::fputs("\x93NUMPY this is not a header", f);
  std::fclose(f);
  expect_bad_input(run_cli(with_input(good, "x", dir.path("garbage.npy"))), "garbage.npy", dir);

  write_npy(dir.path("scale3.npy"), Tensor(DType::F32, {3, 2}));
  expect_bad_input(run_cli(with_input(good, "scale", dir.path("scale3.npy"))),
                   "scale must be 1-dimensional[3,2]", dir);
  write_npy(dir.path("scale7.npy"), Tensor(DType::F32, {7}));
  expect_bad_input(run_cli(with_input(good, "scale", dir.path("scale7.npy"))),
                   "scale must have the same number of elements as the channels of x, got 7 and 5",
                   dir);
  write_npy(dir.path("dy.npy"), Tensor(DType::F32, {2, 3, 4, 6}));
  expect_bad_input(run_cli(with_input(good, "y_backprop", dir.path("dy.npy"))),
                   "x and y_backprop must have same shape", dir);
  expect_bad_input(run_cli(with(good, {"--attr", "data_format=NCWH"})), "data_format", dir);
  expect_bad_input(run_cli(with(good, {"--attr", "epsilon=tiny"})), "epsilon", dir);
  expect_bad_input(run_cli(with(good, {"--attr", "momentum=0.9"})), "unknown attr 'momentum'", dir);
  expect_bad_input(run_cli(with_input(good, "gamma", dir.path("x.npy"))), "unknown input 'gamma'",
                   dir);
  expect_bad_input(run_cli(with(good, {"--backend", "tpu"})), "unknown backend 'tpu'", dir);
  expect_bad_input(run_cli(with(good, {"--threads", "-4"})), "--threads", dir);
  expect_bad_input(run_cli({"run", "--op", p.op, "--sample"}), "--out", dir);
  expect_bad_input(run_cli({"run", "--op", p.op, "--out", dir.path("out")}), "run needs inputs",
                   dir);
  expect_bad_input(run_cli({"run", "--op", "Conv2D", "--out", dir.path("out")}),
                   "unknown op 'Conv2D'", dir);
  expect_bad_input(
      run_cli({"run", "--op", p.op, "--input", "x=" + dir.path("x.npy"), "--out", dir.path("out")}),
      "missing input", dir);
  expect_bad_input(run_cli(with_input(good, "x", dir.path("captured.npz") + ":x")), "captured.npz",
                   dir);
}

TEST(CliRun, UnavailableBackendSaysSo) {
  TempDir dir;
  const CliRun r = run_cli({"run", "--sample", "--backend", "cudnn", "--out", dir.path("out")});
  if (r.status == 0) GTEST_SKIP() << "a GPU is present";
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_NE(r.err.find("cudnn"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("not available"), std::string::npos) << r.err;
  EXPECT_TRUE(dir.files("out").empty());
}

}  // namespace bnscope::test
