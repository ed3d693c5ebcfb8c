// ops, demo and --help: the commands that take no problem.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <sstream>

#include "cli_harness.h"
#include "io/npy.h"
#include "ops/catalog.h"
#include "ops/problem_io.h"

namespace bnscope::test {

TEST(CliOps, ListsEveryCatalogOpWithItsArgumentNames) {
  const CliRun r = run_cli({"ops"});
  ASSERT_EQ(r.status, 0) << r.err;
  for (const OpSpec& op : op_catalog()) {
    const std::string out = "\n" + r.out, name = "\n" + std::string(op.name);
    EXPECT_TRUE(out.find(name + "\n") != std::string::npos ||
                out.find(name + "  (") != std::string::npos)
        << op.name;
    for (const ArgSpec& a : op.inputs)
      EXPECT_NE(r.out.find(std::string(a.name)), std::string::npos);
    for (const AttrSpec& a : op.attrs)
      EXPECT_NE(r.out.find(std::string(a.name)), std::string::npos);
  }
}

TEST(CliOps, DescribesTheBackendsCudaEmuAsTheKernelsOnTheCpu) {
  for (const char* args : {"ops", "--help"}) {
    const CliRun r = run_cli({args});
    ASSERT_EQ(r.status, 0) << r.err;
    const std::size_t at = r.out.find("\n  cuda-emu ");
    ASSERT_NE(at, std::string::npos) << r.out;
    const std::string line = r.out.substr(at, r.out.find('\n', at + 1) - at);
    EXPECT_NE(line.find("on the CPU"), std::string::npos) << line;
    EXPECT_NE(line.find("no GPU timings"), std::string::npos) << line;
  }
}

TEST(CliSelftest, RunsTheSweepOnCudaEmu) {
  const CliRun r = run_cli({"selftest", "--backend", "cuda-emu", "--filter",
                            "FusedBatchNormGradV3 NHWC training inv_std float32 [5,7,11,4]"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("cuda-emu pass"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 passed, 0 failed, 0 unsupported, 0 errors"), std::string::npos) << r.out;
}

TEST(CliProfile, SaysCudaEmusTimesAreTheEmulations) {
  const CliRun emu =
      run_cli({"profile", "--backend", "cuda-emu", "--reps", "1", "--shape", "2,3,3,4"});
  ASSERT_EQ(emu.status, 0) << emu.err;
  EXPECT_NE(emu.out.find("note: cuda-emu: the times of an emulation on this CPU"),
            std::string::npos)
      << emu.out;
  const CliRun cpu = run_cli({"profile", "--reps", "1", "--shape", "2,3,3,4", "--no-copy-probe"});
  ASSERT_EQ(cpu.status, 0) << cpu.err;
  EXPECT_EQ(cpu.out.find("note:"), std::string::npos) << cpu.out;
}

// Without a GPU the counters are not collected, and the profile says why in one line.
TEST(CliProfile, CountersNameWhyTheyAreNotCollected) {
  const CliRun emu = run_cli({"profile", "--backend", "cuda-emu", "--reps", "1", "--shape",
                              "2,3,3,4", "--counters", "--no-copy-probe"});
  ASSERT_EQ(emu.status, 0) << emu.err;
  EXPECT_NE(emu.out.find("counters: not collected: cuda-emu: an emulation"), std::string::npos)
      << emu.out;
  const CliRun cpu =
      run_cli({"profile", "--reps", "1", "--shape", "2,3,3,4", "--no-copy-probe", "--counters"});
  ASSERT_EQ(cpu.status, 0) << cpu.err;
  EXPECT_NE(cpu.out.find("counters: not collected: cpu: hardware counters are collected for the "
                         "GPU backends"),
            std::string::npos)
      << cpu.out;
  const CliRun plain = run_cli({"profile", "--reps", "1", "--shape", "2,3,3,4", "--no-copy-probe"});
  EXPECT_EQ(plain.out.find("counters:"), std::string::npos) << "only when asked: " << plain.out;
}

// cuda-emu's roofline is the device copy of the run's bytes, labelled as the emulator's.
TEST(CliProfile, CudaEmusRooflineIsTheEmulatedDeviceCopy) {
  const CliRun emu =
      run_cli({"profile", "--backend", "cuda-emu", "--reps", "1", "--shape", "2,3,3,4"});
  ASSERT_EQ(emu.status, 0) << emu.err;
  EXPECT_NE(emu.out.find("(device copy measured in this run (emulated: a host copy))"),
            std::string::npos)
      << emu.out;
}

TEST(CliOps, UnknownOpIsBadInput) {
  const CliRun r = run_cli({"ops", "--op", "FusedBatchNormGradV9"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("unknown op 'FusedBatchNormGradV9'"), std::string::npos) << r.err;
}

// The commands as the binary lists them: every registered one, whatever this test knows of.
std::vector<std::string> listed_commands() {
  const CliRun top = run_cli({"--help"});
  std::vector<std::string> names;
  std::istringstream in(top.out.substr(top.out.find("commands:")));
  std::string line;
  std::getline(in, line);
  // The list ends at the first blank line (the backends follow it).
  while (std::getline(in, line) && !line.empty())
    if (line.rfind("  ", 0) == 0) names.push_back(line.substr(2, line.find(' ', 2) - 2));
  return names;
}

TEST(CliHelp, EveryRegisteredCommandHasHelp) {
  const CliRun top = run_cli({"--help"});
  ASSERT_EQ(top.status, 0);
  const std::vector<std::string> names = listed_commands();
  for (const char* known : {"run", "ops", "demo", "sample", "diff", "report", "bench", "profile"})
    EXPECT_NE(std::find(names.begin(), names.end(), known), names.end()) << known;
  for (const std::string& cmd : names) {
    const std::string usage = "usage: bnscope-cli " + cmd;
    const CliRun flag = run_cli({cmd, "--help"});
    EXPECT_EQ(flag.status, 0) << cmd;
    EXPECT_NE(flag.out.find(usage), std::string::npos) << flag.out;
    const CliRun help = run_cli({"help", cmd});
    EXPECT_EQ(help.status, 0) << cmd << help.err;
    EXPECT_EQ(help.out, flag.out) << cmd;  // one help text, two ways to ask
  }
  EXPECT_NE(run_cli({"run", "--help"}).out.find("--input NAME=PATH.npy"), std::string::npos);
}

TEST(CliHelp, HelpOfAnUnknownCommandIsBadInput) {
  const CliRun r = run_cli({"help", "frobnicate"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("unknown command 'frobnicate'"), std::string::npos) << r.err;
}

TEST(CliVersion, PrintsTheProjectVersion) {
  const CliRun r = run_cli({"--version"});
  EXPECT_EQ(r.status, 0);
  EXPECT_TRUE(std::regex_match(r.out, std::regex("bnscope-cli [0-9]+\\.[0-9]+\\.[0-9]+\n")))
      << r.out;
}

TEST(CliHelp, NoCommandIsBadInputWithTheUsageOnStderr) {
  const CliRun r = run_cli({});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.rfind("bnscope-cli: no command given\n", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("usage: bnscope-cli COMMAND"), std::string::npos) << r.err;
  const CliRun help = run_cli({"--help"});
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("usage: bnscope-cli COMMAND"), std::string::npos) << help.out;
}

TEST(CliBench, FiveDimensionalRowsCarryTheThreeDFormatNames) {
  const CliRun r = run_cli(
      {"bench", "--shapes", "2,2,2,2,3", "--modes", "training", "--reps", "1", "--warmup", "0"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find(" NDHWC "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" NCDHW "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(" NHWC "), std::string::npos) << r.out;
}

TEST(CliDiff, NamesTheProblemFileItsInputsCameFrom) {
  TempDir dir;
  ASSERT_EQ(run_cli({"sample", "--shape", "2,2,2,3", "--out", dir.path("p.npz")}).status, 0);
  const CliRun r = run_cli({"diff", "--problem", dir.path("p.npz")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("(inputs from " + dir.path("p.npz") + ")"), std::string::npos) << r.out;
}

TEST(CliHelp, UnknownCommandIsBadInput) {
  const CliRun r = run_cli({"frobnicate"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("unknown command 'frobnicate'"), std::string::npos);
}

TEST(CliDemo, RunsEveryVariantWithoutErrors) {
  const CliRun r = run_cli({"demo", "--op", "FusedBatchNormGradV3"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(r.out.find("error:"), std::string::npos) << r.out;
  // 4 formats x 2 modes x 3 dtypes, plus the header line.
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1 + 4 * 2 * 3);
  EXPECT_NE(r.out.find("TensorFlow would reject"), std::string::npos);  // NCHW inference
}

}  // namespace bnscope::test

namespace bnscope::test {

TEST(CliSelftest, AFilterThatMatchesNoCaseIsBadInput) {
  const CliRun r = run_cli({"selftest", "--backend", "cuda-emu", "--filter", "zzzz"});
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("no case matches --filter zzzz"), std::string::npos) << r.err;
}

TEST(CliFlags, AValueGivenTwiceIsBadInput) {
  TempDir dir;
  const std::string out = dir.path("out");
  const auto expect_twice = [](const std::vector<std::string>& args, const std::string& what) {
    const CliRun r = run_cli(args);
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find(what + " given twice"), std::string::npos) << r.err;
  };
  expect_twice({"run", "--sample", "--out", out, "--out", dir.path("b")}, "--out");
  expect_twice({"run", "--sample", "--backend", "cpu", "--backend", "cpu-reference", "--out", out},
               "--backend");
  expect_twice({"run", "--sample", "--attr", "epsilon=0.1", "--attr", "epsilon=0.2", "--out", out},
               "--attr epsilon");
  expect_twice({"diff", "--shape", "2,2,2,2", "--shape", "2,2,2,3"}, "--shape");
  ASSERT_EQ(run_cli({"sample", "--shape", "2,2,2,2", "--out", dir.path("p.npz")}).status, 0);
  expect_twice(
      {"run", "--problem", dir.path("p.npz"), "--problem", dir.path("p.npz"), "--out", out},
      "--problem");
  const Problem p = load_problem(dir.path("p.npz"));
  write_npy(dir.path("x.npy"), p.inputs.at("x"));
  expect_twice({"run", "--input", "x=" + dir.path("x.npy"), "--input", "x=" + dir.path("x.npy"),
                "--out", out},
               "input x");
  EXPECT_FALSE(std::filesystem::exists(out));
  // A problem file's attr may be overridden once.
  EXPECT_EQ(run_cli({"run", "--problem", dir.path("p.npz"), "--attr", "epsilon=0.1", "--out", out})
                .status,
            0);
}

TEST(CliSample, WritesAProblemThatRunsAndFlagsAWrongConvention) {
  TempDir dir;
  const std::string file = dir.path("p.npz");
  const CliRun made =
      run_cli({"sample", "--shape", "2,3,3,4", "--convention", "inv_std", "--out", file});
  ASSERT_EQ(made.status, 0) << made.err;
  const CliRun ok = run_cli({"run", "--problem", file, "--out", dir.path("a")});
  ASSERT_EQ(ok.status, 0) << ok.err;
  EXPECT_EQ(ok.err.find("warning: reserve_space_2"), std::string::npos) << ok.err;
  const CliRun wrong =
      run_cli({"run", "--problem", file, "--convention", "variance", "--out", dir.path("b")});
  ASSERT_EQ(wrong.status, 0) << wrong.err;
  EXPECT_NE(wrong.err.find("cuDNN convention"), std::string::npos) << wrong.err;
}

TEST(CliSample, RejectsBadShapes) {
  TempDir dir;
  for (const char* shape : {"2,3", "2,x,3,4", "2,-3,3,4", "99999999999,99999999999,99999999,9"}) {
    const CliRun r = run_cli({"sample", "--shape", shape, "--out", dir.path("p.npz")});
    EXPECT_EQ(r.status, 2) << shape;
    EXPECT_NE(r.err.find("shape"), std::string::npos) << r.err;
  }
  EXPECT_TRUE(dir.files().empty());
}

}  // namespace bnscope::test
