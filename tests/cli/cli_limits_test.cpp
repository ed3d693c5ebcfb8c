// The memory limit at the command line: its variable read strictly, and a generated problem's
// size checked from its shape before anything is made.

#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>

#include "cli_harness.h"

namespace bnscope::test {
namespace {

// BNSCOPE_MEMORY_LIMIT_MB for the commands run while it lives.
class LimitVariable {
 public:
  explicit LimitVariable(const char* value) { ::setenv("BNSCOPE_MEMORY_LIMIT_MB", value, 1); }
  ~LimitVariable() { ::unsetenv("BNSCOPE_MEMORY_LIMIT_MB"); }
};

void expect_refused_at_once(const std::vector<std::string>& args, const std::string& fragment) {
  SCOPED_TRACE(args[0] + " " + args[2]);
  const auto start = std::chrono::steady_clock::now();
  const CliRun r = run_cli(args);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find(fragment), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_LT(seconds, 5) << "the problem was made before its size was checked";
}

TEST(CliLimits, AGeneratedProblemIsCheckedFromItsShapeFirst) {
  TempDir dir;
  const LimitVariable limit("500");
  const std::string more = "more than the memory limit of 0.49 GiB";
  expect_refused_at_once({"sample", "--shape", "1,1,1,100000000", "--out", dir.path("s.npz")},
                         more);
  expect_refused_at_once({"sample", "--shape", "4294967297,1,1,1", "--out", dir.path("s.npz")},
                         more);
  expect_refused_at_once(
      {"sample", "--shape", "1,1,1,2147483648", "--compress", "--out", dir.path("s.npz")}, more);
  EXPECT_EQ(dir.files(), std::vector<std::string>{});
  // Within the limit as a sample, not as a run: the run's words.
  expect_refused_at_once({"diff", "--shape", "60,250,250,10"},
                         "running FusedBatchNormGradV3 on x of shape [60,250,250,10] needs");
  for (const char* command : {"diff", "profile"})
    expect_refused_at_once({command, "--shape", "1,1,1,100000000"}, more);
  expect_refused_at_once({"report", "--shape", "1,1,1,100000000", "--out", dir.path("r")}, more);
  expect_refused_at_once({"bench", "--shapes", "2,2,2,2;1,1,1,100000000"}, more);
}

TEST(CliLimits, ABadLimitVariableIsBadInput) {
  for (const char* value : {"abc", "0", "-5", " 5", "5MB", "99999999999999999999", ""}) {
    SCOPED_TRACE(value);
    const LimitVariable limit(value);
    const CliRun r = run_cli({"diff", "--shape", "2,2,2,2"});
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find("BNSCOPE_MEMORY_LIMIT_MB expects a whole number of MiB"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(r.out, "");
  }
  const LimitVariable limit("4096");
  EXPECT_EQ(run_cli({"diff", "--shape", "2,2,2,2"}).status, 0);
}

}  // namespace
}  // namespace bnscope::test
