// bnscope-cli sweep on the committed sample captures, and on tampered copies of them.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli_harness.h"
#include "io/json_value.h"

namespace bnscope::test {
namespace {

namespace fs = std::filesystem;

std::string capture_path(const std::string& name) {
  return std::string(BNSCOPE_SOURCE_DIR) + "/resources/captures/" + name;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(CliSweep, SampleCapturesAgreeOnCpuAndCpuReference) {
  for (const char* name : {"sample", "sample_fused"})
    for (const char* backend : {"cpu", "cpu-reference"}) {
      const CliRun r =
          run_cli({"sweep", capture_path(name), "--against", "tf", "--backends", backend});
      EXPECT_EQ(r.status, 0) << name << " " << backend << "\n" << r.out << r.err;
      EXPECT_TRUE(has(r.out, "agree, 0 disagree, 0 broken")) << r.out;
      EXPECT_TRUE(has(r.out, "bn_nchw")) << r.out;
      EXPECT_TRUE(has(r.out, "x_backprop")) << r.out;
      // Progress goes to a terminal only; here stderr is a file.
      EXPECT_EQ(r.err, "");
    }
}

TEST(CliSweep, JsonAndReportFiles) {
  TempDir t;
  const CliRun r = run_cli({"sweep", capture_path("sample"), "--order", "worst", "--json",
                            t.path("s.json"), "--report", t.path("rep")});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const JsonValue j = parse_json(slurp(t.path("s.json")), "s.json");
  EXPECT_EQ(j.at("schema").string, "bnscope-sweep/1");
  EXPECT_EQ(j.at("reference").string, "tf");
  EXPECT_EQ(j.at("summary").at("agree").number, 3);
  ASSERT_EQ(j.at("layers").items.size(), 3u);
  for (const JsonValue& l : j.at("layers").items) {
    EXPECT_EQ(l.at("verdict").string, "agree");
    EXPECT_EQ(l.at("outputs").items.size(), 3u);
  }
  EXPECT_EQ(t.files("rep"), (std::vector<std::string>{"report.csv", "report.html", "report.json"}));
  const std::string html = slurp(t.path("rep/report.html"));
  EXPECT_TRUE(has(html, "bn_nhwc_f16")) << html;
  const std::string csv = slurp(t.path("rep/report.csv"));
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 3 * 3) << csv;
}

// A copy of the sample that a test may break.
struct Tampered {
  TempDir t;
  std::string dir = t.path("cap");
  Tampered() { fs::copy(capture_path("sample"), dir); }
};

TEST(CliSweep, BrokenLayerFileIsReportedInItsRowAndTheSweepGoesOn) {
  Tampered c;
  std::ofstream(c.dir + "/layer_001_bn_nchw.npz", std::ios::trunc) << "garbage";
  TempDir t;
  const CliRun r = run_cli({"sweep", c.dir, "--report", t.path("rep")});
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_TRUE(has(r.out, "2 agree, 0 disagree, 1 broken")) << r.out;
  EXPECT_TRUE(has(r.out, "BROKEN")) << r.out;
  EXPECT_TRUE(has(r.out, "layer_001_bn_nchw.npz")) << r.out;
  EXPECT_TRUE(has(slurp(t.path("rep/report.html")), "id=\"layer-1\""));
}

TEST(CliSweep, DisagreeingLayerExitsOne) {
  Tampered c;
  // Layer 2's file claims layer 0's place: the manifest says otherwise, so the row is broken
  // rather than compared with the wrong layer's outputs.
  fs::copy_file(c.dir + "/layer_002_bn_nhwc_f16.npz", c.dir + "/layer_000_bn_nhwc.npz",
                fs::copy_options::overwrite_existing);
  const CliRun r = run_cli({"sweep", c.dir, "--order", "worst"});
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_TRUE(has(r.out, "does not match the manifest")) << r.out;
}

TEST(CliSweep, ManifestNotMatchingTheFilesIsBadInput) {
  {
    Tampered c;
    fs::remove(c.dir + "/layer_001_bn_nchw.npz");
    const CliRun r = run_cli({"sweep", c.dir});
    EXPECT_EQ(r.status, 2) << r.out << r.err;
    EXPECT_TRUE(has(r.err, "layer_001_bn_nchw.npz")) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  {
    Tampered c;
    fs::copy_file(c.dir + "/layer_001_bn_nchw.npz", c.dir + "/extra.npz");
    const CliRun r = run_cli({"sweep", c.dir});
    EXPECT_EQ(r.status, 2) << r.out << r.err;
    EXPECT_TRUE(has(r.err, "extra.npz")) << r.err;
    EXPECT_TRUE(has(r.err, "not listed in the manifest")) << r.err;
  }
}

TEST(CliSweep, BadInput) {
  TempDir t;
  EXPECT_EQ(run_cli({"sweep"}).status, 2);
  EXPECT_EQ(run_cli({"sweep", t.path("nope")}).status, 2);
  const CliRun empty = run_cli({"sweep", t.path()});
  EXPECT_EQ(empty.status, 2);
  EXPECT_TRUE(has(empty.err, "no manifest.json")) << empty.err;
  EXPECT_EQ(run_cli({"sweep", capture_path("sample"), "--order", "best"}).status, 2);
  EXPECT_EQ(run_cli({"sweep", capture_path("sample"), "--backends", "nope"}).status, 2);
  EXPECT_EQ(
      run_cli({"sweep", capture_path("sample"), "--against", "cpu", "--backends", "cpu"}).status,
      2);
  EXPECT_EQ(run_cli({"sweep", capture_path("sample"), "--frobnicate"}).status, 2);
}

}  // namespace
}  // namespace bnscope::test
