// Output sets, input files and dtypes at the command line: what a user meets first.

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "cli_harness.h"
#include "io/npy.h"
#include "io/npz.h"
#include "ops/problem_io.h"
#include "ops/sample.h"

namespace bnscope::test {

namespace {

Problem small_problem() {
  SampleSpec s;
  s.shape = {2, 3, 4, 5};
  return random_problem(s);
}

std::vector<std::string> all_entries(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

void expect_exit2_one_line(const CliRun& r, const std::string& fragment) {
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find(fragment), std::string::npos) << "stderr: " << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

}  // namespace

// A directory in the way of one output: the run exits 2 and the earlier outputs stay as they
// were, with no temporary left behind.
TEST(CliIo, BlockedOutputNameLeavesTheEarlierSetUntouched) {
  TempDir dir;
  const Problem p = small_problem();
  const std::vector<std::string> flags = input_flags(p, dir);
  ASSERT_EQ(run_cli(with({"run", "--out", dir.path("out")}, flags)).status, 0);
  const std::string before = slurp(dir.path("out/x_backprop.npy"));
  std::filesystem::remove(dir.path("out/scale_backprop.npy"));
  std::filesystem::create_directory(dir.path("out/scale_backprop.npy"));
  const auto entries = all_entries(dir.path("out"));

  const CliRun r = run_cli(with({"run", "--attr", "epsilon=0.5", "--out", dir.path("out")}, flags));
  expect_exit2_one_line(r, "scale_backprop.npy");
  EXPECT_NE(r.err.find("directory"), std::string::npos) << r.err;
  EXPECT_EQ(all_entries(dir.path("out")), entries);
  EXPECT_EQ(slurp(dir.path("out/x_backprop.npy")), before);
}

// A disk that fills up while a large file is written (simulated with a file-size limit, which
// fails the write the way a full disk does): the command exits 2 with one line naming the file,
// the earlier files are untouched and no temporary is left. The outputs are large enough to go
// through several slices of the bulk writer.
TEST(CliIo, AFullDiskLeavesTheEarlierFilesAndNoTemporary) {
  TempDir dir;
  ASSERT_EQ(run_cli({"sample", "--shape", "16,64,64,64", "--out", dir.path("p.npz")}).status, 0);
  ASSERT_EQ(run_cli({"run", "--problem", dir.path("p.npz"), "--out", dir.path("out")}).status, 0);
  const std::string problem = slurp(dir.path("p.npz"));
  const std::string output = slurp(dir.path("out/x_backprop.npy"));
  ASSERT_GT(output.size(), std::size_t{16} << 20);
  const auto entries = all_entries(dir.path());
  const auto outputs = all_entries(dir.path("out"));
  // 8192 blocks of 512 or 1024 bytes: 4 or 8 MiB, as the shell counts them; SIGXFSZ ignored, so
  // the write fails with EFBIG instead of ending the process.
  const auto limited = [&](const std::vector<std::string>& args) {
    std::string cmd = "(trap '' XFSZ; ulimit -f 8192; exec '" + std::string(BNSCOPE_CLI) + "'";
    for (const std::string& a : args) cmd += " '" + a + "'";
    cmd += ") >'" + dir.path("o.txt") + "' 2>'" + dir.path("e.txt") + "' </dev/null";
    const int raw = std::system(cmd.c_str());
    CliRun r;
    r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    r.err = slurp(dir.path("e.txt"));
    std::filesystem::remove(dir.path("o.txt"));
    std::filesystem::remove(dir.path("e.txt"));
    return r;
  };
  expect_exit2_one_line(limited({"run", "--problem", dir.path("p.npz"), "--attr", "epsilon=0.5",
                                 "--out", dir.path("out")}),
                        "x_backprop.npy");
  EXPECT_EQ(all_entries(dir.path("out")), outputs);
  EXPECT_EQ(slurp(dir.path("out/x_backprop.npy")), output);
  expect_exit2_one_line(
      limited({"sample", "--shape", "16,64,64,64", "--seed", "2", "--out", dir.path("p.npz")}),
      "p.npz");
  EXPECT_EQ(all_entries(dir.path()), entries);
  EXPECT_EQ(slurp(dir.path("p.npz")), problem);
}

TEST(CliIo, ReportFilesAreOneSetAndTheOutputPathIsCheckedFirst) {
  TempDir dir;
  std::filesystem::create_directories(dir.path("rep/trace.json"));
  const CliRun r = run_cli({"report", "--reps", "1", "--out", dir.path("rep")});
  expect_exit2_one_line(r, "trace.json");
  EXPECT_EQ(all_entries(dir.path("rep")), std::vector<std::string>{"trace.json"});

  std::ofstream(dir.path("file")) << "x";
  expect_exit2_one_line(run_cli({"report", "--out", dir.path("file")}), "not a directory");
  expect_exit2_one_line(run_cli({"profile", "--json", dir.path("nowhere/p.json")}),
                        "does not exist");
  expect_exit2_one_line(run_cli({"profile", "--trace", dir.path("rep")}), "is a directory");
}

TEST(CliIo, IntegerAndBoolInputsAreRefusedNamingTheDtypesTheOpTakes) {
  TempDir dir;
  const Problem p = small_problem();
  const std::vector<std::string> flags = input_flags(p, dir);
  const std::string data = std::string(BNSCOPE_SOURCE_DIR) + "/tests/io/data/";
  const CliRun r =
      run_cli(with({"run", "--out", dir.path("out")}, with_input(flags, "x", data + "int_i4.npy")));
  expect_exit2_one_line(r, "input 'x'");
  EXPECT_NE(r.err.find("int32"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("float16, bfloat16, float32"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path("out")));

  const CliRun b = run_cli(
      with({"run", "--out", dir.path("out")}, with_input(flags, "scale", data + "bool.npy")));
  expect_exit2_one_line(b, "input 'scale'");
  EXPECT_NE(b.err.find("bool"), std::string::npos) << b.err;
  EXPECT_NE(b.err.find("float32"), std::string::npos) << b.err;
}

TEST(CliIo, OutputsHaveTheOpsDtype) {
  TempDir dir;
  SampleSpec s;
  s.shape = {2, 3, 4, 5};
  s.dtype = DType::F16;
  const Problem p = random_problem(s);
  ASSERT_EQ(run_cli(with({"run", "--out", dir.path("out")}, input_flags(p, dir))).status, 0);
  EXPECT_EQ(read_npy(dir.path("out/x_backprop.npy")).dtype(), DType::F16);
  EXPECT_EQ(read_npy(dir.path("out/scale_backprop.npy")).dtype(), DType::F32);
}

TEST(CliIo, InputFileSpellings) {
  TempDir dir;
  const Problem p = small_problem();
  std::vector<std::pair<std::string, Tensor>> members(p.inputs.begin(), p.inputs.end());
  write_npz(dir.path("in.npz"), members);
  const std::vector<std::string> base = {"run", "--inputs", dir.path("in.npz"), "--out",
                                         dir.path("out")};
  EXPECT_EQ(run_cli(with(base, {"--input", "x=" + dir.path("in.npz") + ":x.npy"})).status, 0);
  EXPECT_EQ(run_cli(with(base, {"--input", "x=" + dir.path("in.npz") + ":x"})).status, 0);

  std::filesystem::create_directory(dir.path("d.npy"));
  expect_exit2_one_line(run_cli(with(base, {"--input", "x=" + dir.path("d.npy")})),
                        "is a directory");
  std::filesystem::create_directory(dir.path("plain"));
  expect_exit2_one_line(run_cli(with(base, {"--input", "x=" + dir.path("plain")})),
                        "is a directory");
}

TEST(CliIo, BooleanAttrsTakeTheSameSpellingsEverywhere) {
  TempDir dir;
  for (const char* v : {"true", "True", "TRUE", "1", "false", "False", "FALSE", "0"}) {
    SCOPED_TRACE(v);
    const CliRun r = run_cli({"run", "--sample", "--quiet", "--attr",
                              std::string("is_training=") + v, "--out", dir.path("out")});
    EXPECT_EQ(r.status, 0) << r.err;
  }
  expect_exit2_one_line(
      run_cli({"run", "--sample", "--attr", "is_training=yes", "--out", dir.path("out")}),
      "expects true or false");
}

TEST(CliIo, BadValuesAreQuotedAtMostAbout200Characters) {
  TempDir dir;
  const std::string huge(5000, 'q');
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"run", "--sample", "--attr", "epsilon=" + huge},
        std::vector<std::string>{"run", "--sample", "--attr", "is_training=" + huge},
        std::vector<std::string>{"run", "--sample", "--dtype", huge},
        std::vector<std::string>{"run", "--sample", "--input", huge},
        std::vector<std::string>{"run", "--sample", "--threads", huge},
        std::vector<std::string>{"run", "--sample", huge}}) {
    const CliRun r = run_cli(with(args, {"--out", dir.path("out")}));
    EXPECT_EQ(r.status, 2) << r.err.substr(0, 300);
    EXPECT_LT(r.err.size(), 600u) << r.err.substr(0, 300);
    EXPECT_NE(r.err.find("5000 characters"), std::string::npos) << r.err.substr(0, 300);
  }
}

TEST(CliIo, TinyEpsilonKeepsEveryDigit) {
  TempDir dir;
  const CliRun s = run_cli(
      {"sample", "--attr", "epsilon=1e-45", "--shape", "2,2,2,3", "--out", dir.path("p.npz")});
  ASSERT_EQ(s.status, 0) << s.err;
  EXPECT_EQ(std::get<double>(load_problem(dir.path("p.npz")).attrs.at("epsilon")), 1e-45);
  const CliRun r = run_cli({"run", "--problem", dir.path("p.npz"), "--out", dir.path("out")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("epsilon 1e-45 is below"), std::string::npos) << r.err;
  EXPECT_EQ(attr_value_text(AttrValue{1.2345678901234567e-45}), "1.2345678901234567e-45");
}

TEST(CliIo, SampleWritesStoredMembersUnlessAskedToCompress) {
  TempDir dir;
  ASSERT_EQ(run_cli({"sample", "--shape", "4,8,8,16", "--out", dir.path("s.npz")}).status, 0);
  ASSERT_EQ(
      run_cli({"sample", "--shape", "4,8,8,16", "--compress", "--out", dir.path("c.npz")}).status,
      0);
  const Problem s = load_problem(dir.path("s.npz")), c = load_problem(dir.path("c.npz"));
  for (const auto& [name, t] : s.inputs)
    EXPECT_EQ(t.to_doubles(), c.inputs.at(name).to_doubles()) << name;
  EXPECT_GT(std::filesystem::file_size(dir.path("s.npz")), 4u * 8 * 8 * 16 * 4 * 2);
  EXPECT_LT(std::filesystem::file_size(dir.path("c.npz")),
            std::filesystem::file_size(dir.path("s.npz")));
}

TEST(CliIo, AFifoGivenAsAnInputIsRefusedWithoutWaiting) {
  TempDir dir;
  const Problem p = small_problem();
  const std::vector<std::string> flags = input_flags(p, dir);
  for (const char* name : {"f.npy", "f.npz"}) ASSERT_EQ(::mkfifo(dir.path(name).c_str(), 0600), 0);
  const std::vector<std::string> base = {"run", "--out", dir.path("out")};
  expect_exit2_one_line(run_cli(with(base, with_input(flags, "x", dir.path("f.npy")))),
                        "is not a regular file");
  expect_exit2_one_line(run_cli(with(base, with_input(flags, "x", dir.path("f.npz") + ":x"))),
                        "is not a regular file");
  expect_exit2_one_line(run_cli(with(base, {"--problem", dir.path("f.npz")})),
                        "is not a regular file");
}

TEST(CliIo, WarningsGoToStderrEvenWhenQuiet) {
  TempDir dir;
  Problem p = small_problem();
  p.inputs.at("x").set(0, std::nan(""));
  const CliRun r = run_cli(with({"run", "--quiet", "--out", dir.path("out")}, input_flags(p, dir)));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("warning: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("NaN"), std::string::npos) << r.err;
  const CliRun loud = run_cli(with({"run", "--out", dir.path("out")}, input_flags(p, dir)));
  EXPECT_NE(loud.out.find("x_backprop"), std::string::npos) << loud.out;
  EXPECT_EQ(loud.out.find("warning: "), std::string::npos) << loud.out;
  EXPECT_EQ(loud.err, r.err);
}

// TensorFlow's epsilon is a float32 attr: what overflows it would be inf and zero every gradient.
TEST(CliIo, AFloatAttrMustBeFiniteInFloat32) {
  TempDir dir;
  for (const char* eps : {"1e39", "3.5e38", "-1e39"})
    expect_exit2_one_line(run_cli({"run", "--sample", "--attr", std::string("epsilon=") + eps,
                                   "--out", dir.path("out")}),
                          "attr 'epsilon' must be finite in float32");
  EXPECT_EQ(run_cli({"run", "--sample", "--attr", "epsilon=3.4028235e38", "--out", dir.path("out")})
                .status,
            0);
  expect_exit2_one_line(
      run_cli({"run", "--sample", "--attr", "epsilon=inf", "--out", dir.path("o2")}),
      "must be finite");
  for (const double bad : {1e39, std::nan("")}) {
    Problem p = small_problem();
    p.attrs["epsilon"] = bad;
    save_problem(dir.path("p.npz"), p);
    const CliRun r = run_cli({"run", "--problem", dir.path("p.npz"), "--out", dir.path("o3")});
    expect_exit2_one_line(r, dir.path("p.npz") + ": problem.json: attr 'epsilon'");
    EXPECT_NE(r.err.find("finite in float32"), std::string::npos) << r.err;
  }
  EXPECT_FALSE(std::filesystem::exists(dir.path("o2")));
  EXPECT_FALSE(std::filesystem::exists(dir.path("o3")));
}

}  // namespace bnscope::test
