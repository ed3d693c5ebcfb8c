// BNSCOPE_CACHE_DIR at the command line: a folder laid out as sysfs's cpu0/cache stands for this
// host's caches (what the cpu backend would choose with another host's), named in the report's
// code path; a folder that describes no L2 is refused before anything runs.

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "cli_harness.h"

namespace bnscope::test {
namespace {

// BNSCOPE_CACHE_DIR for the commands run while it lives.
class CacheDirVariable {
 public:
  explicit CacheDirVariable(const std::string& dir) {
    ::setenv("BNSCOPE_CACHE_DIR", dir.c_str(), 1);
  }
  ~CacheDirVariable() { ::unsetenv("BNSCOPE_CACHE_DIR"); }
};

void write_cache(const std::string& dir, int index, const char* level, const char* type,
                 const char* size, const char* shared) {
  const std::filesystem::path d = std::filesystem::path(dir) / ("index" + std::to_string(index));
  std::filesystem::create_directories(d);
  for (const auto& [name, text] : {std::pair{"level", level}, std::pair{"type", type},
                                   std::pair{"size", size}, std::pair{"shared_cpu_list", shared}})
    std::ofstream(d / name) << text << '\n';
}

TEST(CliCacheDir, AnotherHostsCachesPlanTheRunAndNameThemselves) {
  TempDir dir;
  // A 16-vCPU guest's view of a Xeon: 48 KiB L1d, 2 MiB L2 per core, 300 MiB L3 for all 16.
  write_cache(dir.path("xeon"), 0, "1", "Data", "48K", "0");
  write_cache(dir.path("xeon"), 1, "1", "Instruction", "32K", "0");
  write_cache(dir.path("xeon"), 2, "2", "Unified", "2048K", "0");
  write_cache(dir.path("xeon"), 3, "3", "Unified", "307200K", "0-15");
  const CacheDirVariable caches(dir.path("xeon"));
  const CliRun r =
      run_cli({"bench", "--backends", "cpu", "--shapes", "2,8,8,64", "--modes", "training",
               "--formats", "NHWC", "--reps", "1", "--json", dir.path("bench.json")});
  EXPECT_EQ(r.status, 0) << r.err;
  const std::string json = slurp(dir.path("bench.json"));
  EXPECT_NE(json.find("L1d 48 KiB, L2 2 MiB, L3 300 MiB shared by 16 (BNSCOPE_CACHE_DIR "),
            std::string::npos)
      << json.substr(0, 2000);
}

TEST(CliCacheDir, AFolderWithoutAnL2IsRefusedInOneLine) {
  TempDir dir;
  write_cache(dir.path("l1only"), 0, "1", "Data", "32K", "0");
  const CacheDirVariable caches(dir.path("l1only"));
  const CliRun r = run_cli({"bench", "--backends", "cpu", "--shapes", "2,8,8,64", "--reps", "1",
                            "--json", dir.path("bench.json")});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("BNSCOPE_CACHE_DIR: no L2 described under "), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path("bench.json")));
}

}  // namespace
}  // namespace bnscope::test
