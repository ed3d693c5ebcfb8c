// bnscope-cli with plugins: --plugin, BNSCOPE_PLUGIN_PATH, conformance's exit status and files,
// and a crashing plugin that leaves the CLI to report it.
#include <gtest/gtest.h>

#include "cli_harness.h"
#include "io/json_value.h"
#include "plugin_test_util.h"

namespace bnscope::test {
namespace {

TEST(PluginCli, ConformanceOfTheExampleWritesJunitAndJsonAndExitsZero) {
  TempDir dir;
  const CliRun r = run_cli({"conformance", "--plugin", plugin_path("plugin_example"), "--backend",
                            "example-c", "--junit", dir.path("j.xml"), "--json", dir.path("c.json"),
                            "--filter", "GradV3 NCHW"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("PASS: 63 passed, 0 failed"), std::string::npos) << r.out;
  const std::string xml = slurp(dir.path("j.xml"));
  EXPECT_NE(xml.find("<testsuites"), std::string::npos);
  EXPECT_NE(xml.find("tests=\"63\" failures=\"0\" errors=\"0\""), std::string::npos) << xml;
  const JsonValue j = parse_json(slurp(dir.path("c.json")), "c.json");
  EXPECT_EQ(j.at("schema").string, "bnscope-conformance/1");
  EXPECT_TRUE(j.at("passed").boolean);
  EXPECT_EQ(j.at("cases").items.size(), 63u);
}

TEST(PluginCli, PlantedBugFailsWithItsCauseInTheFiles) {
  TempDir dir;
  const CliRun r = run_cli({"selftest", "--plugin", plugin_path("plugin_bug_layout"), "--backend",
                            "example-c-bug-layout", "--filter",
                            "GradV3 NCHW training variance float32", "--junit", dir.path("j.xml")});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.out.find("layout-swapped: the kernel indexes NCHW buffers as NHWC"),
            std::string::npos)
      << r.out;
  const std::string xml = slurp(dir.path("j.xml"));
  EXPECT_NE(xml.find("<failure message="), std::string::npos);
  EXPECT_NE(xml.find("the kernel indexes NCHW buffers as NHWC"), std::string::npos);
}

TEST(PluginCli, CrashingPluginIsReportedAndTheCliGoesOn) {
  const CliRun r = run_cli({"diff", "--plugin", plugin_path("plugin_misbehaving"), "--backends",
                            "cpu-reference,misbehaving", "--attr", "epsilon=0.25"});
  EXPECT_EQ(r.status, 4) << r.err;  // an internal error of the backend, not of bnscope-cli
  EXPECT_NE(r.err.find("plugin misbehaving crashed: SIGSEGV in run() of FusedBatchNormGradV3 NHWC "
                       "float32"),
            std::string::npos)
      << r.err;
}

TEST(PluginCli, PluginPathFoldersAreLoadedAndBadLibrariesThereOnlyWarn) {
  TempDir dir;
  const CliRun r = [&] {
    ::setenv("BNSCOPE_PLUGIN_PATH", BNSCOPE_TEST_PLUGIN_DIR, 1);
    CliRun run = run_cli({"--help"});
    ::unsetenv("BNSCOPE_PLUGIN_PATH");
    return run;
  }();
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("example-c-bug-reserve"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("plugin_newer.so was built for plugin ABI"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("from BNSCOPE_PLUGIN_PATH; skipped"), std::string::npos) << r.err;
}

TEST(PluginCli, BadPluginFlagFailsWithTheReason) {
  const CliRun r = run_cli({"diff", "--plugin", plugin_path("plugin_no_entry")});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("has no bnscope_plugin_init"), std::string::npos) << r.err;
  const CliRun missing = run_cli({"diff", "--plugin"});
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find("--plugin: expected the path"), std::string::npos) << missing.err;
}

TEST(PluginCli, InProcessModeRunsTheConformanceToo) {
  const CliRun r =
      run_cli({"conformance", "--plugin-in-process", "--plugin", plugin_path("plugin_example"),
               "--backend", "example-c", "--filter", "GradV3 NHWC training inv_std float16"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("PASS: 7 passed"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace bnscope::test
