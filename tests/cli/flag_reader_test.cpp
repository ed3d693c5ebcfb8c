// The flag table every bnscope-cli command reads its arguments with: values, repeats, and the
// wording of a missing value or an unknown flag.

#include "flag_reader.h"

#include <gtest/gtest.h>

#include "tensor/error.h"

namespace bnscope::cli {
namespace {

struct Flags {
  std::string out;
  std::vector<std::string> backends{"cpu"};
  int reps = 5;
  std::optional<double> atol;
  Shape shape;
  std::uint64_t seed = 1;
  bool quiet = false;
  std::map<std::string, std::string> named;

  FlagReader reader() {
    FlagReader r("bench");
    r.text("--out", out)
        .list("--backends", backends)
        .integer("--reps", reps, 1, 100)
        .number("--atol", atol)
        .shape("--shape", shape)
        .seed("--seed", seed, 1000)
        .set("--quiet", quiet)
        .prefixed(
            "--tol-",
            [](const std::string& name) {
              if (name == "bad") fail("--tol-bad: no such output");
            },
            [this](const std::string& name, const std::string& v) { named[name] = v; });
    return r;
  }
};

// The message of the Error read() throws, or "" when it accepts the arguments.
std::string error_of(const std::vector<std::string>& args) {
  Flags f;
  try {
    f.reader().read(args);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
    return e.what();
  }
  return "";
}

TEST(FlagReader, AppliesEveryKindOfFlag) {
  Flags f;
  f.reader().read(std::vector<std::string>{"--out", "dir", "--backends", "cpu,,cuda", "--reps", "7",
                                           "--atol", "0.5", "--shape", "[2,3,4,5]", "--seed", "9",
                                           "--quiet", "--tol-dx", "1e-3"});
  EXPECT_EQ(f.out, "dir");
  EXPECT_EQ(f.backends, (std::vector<std::string>{"cpu", "cuda"}));
  EXPECT_EQ(f.reps, 7);
  EXPECT_EQ(f.atol, 0.5);
  EXPECT_EQ(f.shape, (Shape{2, 3, 4, 5}));
  EXPECT_EQ(f.seed, 9u);
  EXPECT_TRUE(f.quiet);
  EXPECT_EQ(f.named.at("dx"), "1e-3");
}

TEST(FlagReader, NoArgumentsKeepsTheDefaults) {
  Flags f;
  f.reader().read({});
  EXPECT_EQ(f.backends, std::vector<std::string>{"cpu"});
  EXPECT_EQ(f.reps, 5);
  EXPECT_FALSE(f.atol.has_value());
  EXPECT_FALSE(f.quiet);
}

TEST(FlagReader, AFlagTakingAValueIsGivenOnce) {
  EXPECT_EQ(error_of({"--reps", "2", "--backends", "a,b", "--reps", "3"}), "--reps given twice");
  EXPECT_EQ(error_of({"--out", "a", "--out", "b"}), "--out given twice");
  EXPECT_EQ(error_of({"--tol-dx", "1", "--tol-dx", "2"}), "--tol-dx given twice");
  EXPECT_EQ(error_of({"--tol-dx", "1", "--tol-db", "2", "--quiet", "--quiet"}), "");
}

TEST(FlagReader, AnEmptyListIsRefused) {
  EXPECT_EQ(error_of({"--backends", ",,"}), "--backends expects a comma-separated list, got ',,'");
  EXPECT_EQ(error_of({"--backends", ""}), "--backends expects a comma-separated list, got ''");
}

TEST(FlagReader, TheValueIsTheNextArgumentEvenWhenItLooksLikeAFlag) {
  Flags f;
  f.reader().read(std::vector<std::string>{"--out", "--quiet"});
  EXPECT_EQ(f.out, "--quiet");
  EXPECT_FALSE(f.quiet);
}

TEST(FlagReader, AMissingValueNamesTheFlag) {
  EXPECT_EQ(error_of({"--out"}), "--out expects a value");
  EXPECT_EQ(error_of({"--quiet", "--reps"}), "--reps expects a value");
  EXPECT_EQ(error_of({"--tol-dx"}), "--tol-dx expects a value");
}

TEST(FlagReader, AnUnknownFlagPointsAtTheCommandsHelp) {
  EXPECT_EQ(error_of({"--nope"}), "unknown flag '--nope' (see bnscope-cli bench --help)");
  EXPECT_EQ(error_of({"--quiet", "stray"}), "unknown flag 'stray' (see bnscope-cli bench --help)");
  // A prefix alone is not a flag, nor is a flag with a suffix it does not take.
  EXPECT_EQ(error_of({"--tol-", "1"}), "unknown flag '--tol-' (see bnscope-cli bench --help)");
  EXPECT_EQ(error_of({"--quiet2"}), "unknown flag '--quiet2' (see bnscope-cli bench --help)");
}

TEST(FlagReader, BadValuesUseTheParsersWording) {
  EXPECT_EQ(error_of({"--reps", "0"}), "--reps expects an integer from 1 to 100, got '0'");
  EXPECT_EQ(error_of({"--seed", "x"}), "--seed expects an integer from 0 to 1000, got 'x'");
  EXPECT_EQ(error_of({"--atol", "-1"}), "--atol expects a non-negative number, got '-1'");
  EXPECT_EQ(error_of({"--shape", "2,3"}),
            "--shape expects 4 (N,H,W,C) or 5 (N,D,H,W,C) dimensions, got '2,3'");
  // Plain decimal numbers only: what stol, stod and friends would also take are typing slips.
  for (const char* shape :
       {"2, 3,4,5", "+2,2,2,2", "2,2,2,2,", ",2,2,2,2", "2,,2,2,2", "0x2,2,2,2"})
    EXPECT_EQ(error_of({"--shape", shape}),
              std::string("--shape expects dimensions like 32,56,56,64, got '") + shape + "'");
  for (const char* reps : {" 5", "+5", "5 ", "0x5"})
    EXPECT_EQ(error_of({"--reps", reps}),
              std::string("--reps expects an integer from 1 to 100, got '") + reps + "'");
  for (const char* atol : {"0x10", " 1", "1e"})
    EXPECT_EQ(error_of({"--atol", atol}),
              std::string("--atol expects a non-negative number, got '") + atol + "'");
  EXPECT_TRUE(error_of({"--atol", "inf"}).empty());
  EXPECT_TRUE(error_of({"--atol", "1e-4"}).empty());
}

TEST(FlagReader, APrefixedNameIsCheckedBeforeItsValue) {
  EXPECT_EQ(error_of({"--tol-bad"}), "--tol-bad: no such output");
  EXPECT_EQ(error_of({"--tol-bad", "1"}), "--tol-bad: no such output");
}

TEST(FlagReader, AFixedUsageLineWordsUnknownFlagsAndMissingValues) {
  std::string op;
  auto read = [&](const std::vector<std::string>& args) -> std::string {
    try {
      FlagReader("demo")
          .text("--op", op)
          .bad_argument(
              [](const std::string& a) { return "demo takes only --op OP, got '" + a + "'"; })
          .read(args);
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(read({"--op", "A"}), "");
  EXPECT_EQ(op, "A");
  EXPECT_EQ(read({"--op", "A", "--op", "B"}), "--op given twice");
  EXPECT_EQ(read({"--op"}), "demo takes only --op OP, got '--op'");
  EXPECT_EQ(read({"--verbose"}), "demo takes only --op OP, got '--verbose'");
}

}  // namespace
}  // namespace bnscope::cli
