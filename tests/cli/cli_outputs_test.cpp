// Single output files at the command line: where they land (links, devices, FIFOs), checked
// before the work, and no temporary left by an interrupted write.

#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "cli_harness.h"

extern char** environ;

namespace bnscope::test {
namespace {

namespace fs = std::filesystem;

bool is_char_device(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0 && S_ISCHR(st.st_mode);
}

void expect_one_line_exit2(const CliRun& r, const std::string& fragment) {
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find(fragment), std::string::npos) << "stderr: " << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST(CliOutputs, ALinkIsWrittenWhereItPointsAndStaysALink) {
  TempDir dir;
  fs::create_directory(dir.path("real"));
  fs::create_symlink("real/d.json", dir.path("link.json"));
  const CliRun r = run_cli({"diff", "--shape", "2,3,3,4", "--json", dir.path("link.json")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(dir.path("link.json")));
  EXPECT_NE(slurp(dir.path("real/d.json")).find("bnscope-report/2"), std::string::npos);
  EXPECT_EQ(dir.files("real"), std::vector<std::string>{"d.json"});
}

TEST(CliOutputs, ADeviceOrFifoIsWrittenInPlace) {
  ASSERT_TRUE(is_char_device("/dev/null"));
  const CliRun r = run_cli({"profile", "--shape", "2,3,3,4", "--reps", "1", "--no-copy-probe",
                            "--json", "/dev/null", "--trace", "/dev/null"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(is_char_device("/dev/null"));

  TempDir dir;
  const std::string fifo = dir.path("d.json");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] { got = slurp(fifo); });
  const CliRun d = run_cli({"diff", "--shape", "2,3,3,4", "--json", fifo});
  reader.join();
  EXPECT_EQ(d.status, 0) << d.err;
  EXPECT_NE(got.find("bnscope-report/2"), std::string::npos);
  struct stat st;
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  EXPECT_EQ(dir.files(), std::vector<std::string>{});  // no temporary beside it
}

TEST(CliOutputs, EveryJsonPathIsCheckedBeforeTheWork) {
  TempDir dir;
  std::ofstream(dir.path("afile")) << "x";
  const std::string bad = dir.path("afile/x.json");
  const std::string capture = std::string(BNSCOPE_SOURCE_DIR) + "/resources/captures/sample";
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"diff", "--shape", "2,3,3,4", "--json", bad},
        std::vector<std::string>{"bench", "--shapes", "2,3,3,4", "--json", bad},
        std::vector<std::string>{"sweep", capture, "--json", bad},
        std::vector<std::string>{"profile", "--shape", "2,3,3,4", "--json", bad}}) {
    SCOPED_TRACE(args[0]);
    const CliRun r = run_cli(args);
    expect_one_line_exit2(r, "afile is not a directory");
    EXPECT_EQ(r.out, "") << "the work ran first";
  }
  const CliRun s = run_cli({"sweep", capture, "--report", dir.path("afile")});
  expect_one_line_exit2(s, "not a directory");
  EXPECT_EQ(s.out, "");
}

// A write ended by SIGTERM or SIGINT leaves neither its temporary file nor a partial target.
TEST(CliOutputs, AnInterruptedWriteLeavesNoTemporary) {
  for (const int sig : {SIGTERM, SIGINT}) {
    SCOPED_TRACE(sig);
    TempDir dir;
    const std::string out = dir.path("p.npz");
    std::vector<std::string> args{BNSCOPE_CLI, "sample", "--shape", "64,64,64,64", "--out", out};
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    ASSERT_EQ(::posix_spawn(&pid, BNSCOPE_CLI, nullptr, nullptr, argv.data(), environ), 0);
    bool seen = false;
    for (int k = 0; k < 20000 && !seen; ++k) {
      for (const std::string& f : dir.files()) seen |= f.rfind(".p.npz.tmp-", 0) == 0;
      if (!seen) std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    if (seen) ::kill(pid, sig);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    if (!seen || !WIFSIGNALED(status)) GTEST_SKIP() << "the write ended before the signal";
    EXPECT_EQ(WTERMSIG(status), sig);
    EXPECT_EQ(dir.files(), std::vector<std::string>{});
  }
}

}  // namespace
}  // namespace bnscope::test
