// diff, report and profile: the reference they name, saved outputs that lack some, the one word for
// each mode in every format, and the cpu passes in the profile table and its trace.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli_harness.h"
#include "io/json_value.h"
#include "io/npy.h"

namespace bnscope::test {

TEST(CliDiff, SaysWhichBackendIsTheReference) {
  const CliRun r = run_cli({"diff", "--shape", "2,3,3,4"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("reference: cpu-reference (backend)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("cpu vs cpu-reference: PASS"), std::string::npos) << r.out;
}

TEST(CliDiff, CpuReferenceIsTheReferenceWheneverListed) {
  const CliRun r = run_cli({"diff", "--shape", "2,3,3,4", "--backends", "cpu,cpu-reference"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("reference: cpu-reference (backend)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("cpu vs cpu-reference"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("cpu-reference vs cpu"), std::string::npos) << r.out;
}

TEST(CliDiff, AgainstADirectoryLackingOutputsFailsNamingThem) {
  TempDir dir;
  const std::string problem = dir.path("p.npz"), saved = dir.path("saved");
  ASSERT_EQ(run_cli({"sample", "--shape", "2,3,3,4", "--out", problem}).status, 0);
  const CliRun ran = run_cli({"run", "--problem", problem, "--out", saved});
  ASSERT_EQ(ran.status, 0) << ran.err;
  std::filesystem::remove(saved + "/scale_backprop.npy");
  std::filesystem::remove(saved + "/offset_backprop.npy");

  const CliRun r = run_cli({"diff", "--problem", problem, "--against", saved});
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.err.find("scale_backprop, offset_backprop"), std::string::npos) << r.err;
  // In the CLI's words: the flag that named the outputs, and the one that accepts them.
  EXPECT_NE(r.err.find("--against " + saved + ": outputs scale_backprop, offset_backprop are"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("give --allow-missing"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line: " << r.err;

  const CliRun ok = run_cli({"diff", "--problem", problem, "--against", saved, "--allow-missing"});
  EXPECT_EQ(ok.status, 0) << ok.out << ok.err;
  EXPECT_NE(ok.out.find("reference: " + saved + " (saved outputs)"), std::string::npos) << ok.out;

  const CliRun whole = run_cli({"diff", "--problem", problem, "--against", dir.path("none")});
  EXPECT_NE(whole.status, 0);  // nothing at all there: the loader's own error
  EXPECT_NE(whole.status, 1);
}

TEST(CliDiff, AgainstACompleteDirectoryPasses) {
  TempDir dir;
  const std::string problem = dir.path("p.npz"), saved = dir.path("saved");
  ASSERT_EQ(run_cli({"sample", "--shape", "2,3,3,4", "--out", problem}).status, 0);
  ASSERT_EQ(run_cli({"run", "--problem", problem, "--out", saved}).status, 0);
  const CliRun r = run_cli({"diff", "--problem", problem, "--against", saved});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
}

TEST(CliDiff, AgainstOutputsOfAnotherSizeIsBadInput) {
  TempDir dir;
  const std::string problem = dir.path("p.npz"), other = dir.path("q.npz");
  ASSERT_EQ(run_cli({"sample", "--shape", "2,3,3,4", "--out", problem}).status, 0);
  ASSERT_EQ(run_cli({"sample", "--shape", "2,3,3,5", "--out", other}).status, 0);
  ASSERT_EQ(run_cli({"run", "--problem", problem, "--out", dir.path("saved")}).status, 0);
  ASSERT_EQ(run_cli({"run", "--problem", other, "--out", dir.path("wrong")}).status, 0);
  std::filesystem::copy_file(dir.path("wrong/x_backprop.npy"), dir.path("saved/x_backprop.npy"),
                             std::filesystem::copy_options::overwrite_existing);
  const CliRun r = run_cli({"diff", "--problem", problem, "--against", dir.path("saved")});
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("x_backprop has shape [2,3,3,5], expected [2,3,3,4]"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line: " << r.err;
}

TEST(CliDiff, NaNFacingANumberIsNotPassedByAnyTolerance) {
  TempDir dir;
  const std::string problem = dir.path("p.npz"), saved = dir.path("saved");
  ASSERT_EQ(run_cli({"sample", "--shape", "2,3,3,4", "--out", problem}).status, 0);
  ASSERT_EQ(run_cli({"run", "--problem", problem, "--out", saved}).status, 0);
  Tensor dx = read_npy(saved + "/x_backprop.npy");
  dx.set(5, std::nan(""));
  write_npy(saved + "/x_backprop.npy", dx);
  const CliRun r = run_cli({"diff", "--problem", problem, "--against", saved, "--atol", "inf"});
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("1 NaN on one side only: no tolerance passes them"), std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("passes at atol inf"), std::string::npos) << r.out;
}

// A tiny value far off in ULP is not among the worst by |a-b|: the element behind the max ULP
// column is printed beside them, marked.
TEST(CliDiff, TheMaxUlpElementIsPrintedWhenTheWorstListLacksIt) {
  TempDir dir;
  const std::string problem = dir.path("p.npz"), saved = dir.path("saved");
  ASSERT_EQ(run_cli({"sample", "--shape", "2,3,3,4", "--out", problem}).status, 0);
  ASSERT_EQ(run_cli({"run", "--problem", problem, "--out", saved}).status, 0);
  Tensor dx = read_npy(saved + "/x_backprop.npy");
  // The smallest value set to 1e-30: its |a-b| is small, its distance about a billion ULP.
  std::int64_t tiny = 0;
  for (std::int64_t i = 1; i < dx.numel(); ++i)
    if (std::fabs(dx.get(i)) < std::fabs(dx.get(tiny))) tiny = i;
  // Half as large again on twelve values of |v| > 0.1: the worst by |a-b|, no sign crossed.
  for (std::int64_t k = 0, i = 0; k < 12 && i < dx.numel(); ++i)
    if (i != tiny && std::fabs(dx.get(i)) > 0.1) dx.set(i, dx.get(i) * 1.5), ++k;
  dx.set(tiny, 1e-30);
  const std::string where = "(" + std::to_string(tiny / 36) + "," + std::to_string(tiny / 12 % 3) +
                            "," + std::to_string(tiny / 4 % 3) + "," + std::to_string(tiny % 4) +
                            ")";  // [2,3,3,4], NHWC
  write_npy(saved + "/x_backprop.npy", dx);
  const CliRun r = run_cli({"diff", "--problem", problem, "--against", saved});
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  const std::size_t at = r.out.find("(max ULP)");
  ASSERT_NE(at, std::string::npos) << r.out;
  const std::string line = r.out.substr(r.out.rfind('\n', at) + 1, at - r.out.rfind('\n', at));
  EXPECT_EQ(line.find(where), 4u) << where << " in " << line;
  EXPECT_NE(line.find("e-30"), std::string::npos) << line;
}

// The report and diff JSON name the problem file by name, marked edited when flags changed it,
// as the app does; a problem made from flags alone has no source.
TEST(CliReport, NamesTheProblemFileItCameFrom) {
  TempDir dir;
  const std::string problem = dir.path("layer3.npz");
  ASSERT_EQ(run_cli({"sample", "--shape", "2,3,3,4", "--out", problem}).status, 0);
  const auto source_of = [](const std::string& json) {
    const JsonValue j = parse_json(slurp(json), json);
    const JsonValue* s = j.at("problem").find("source");
    return s ? s->string : std::string("(none)");
  };
  ASSERT_EQ(run_cli({"report", "--problem", problem, "--reps", "1", "--out", dir.path("r")}).status,
            0);
  EXPECT_EQ(source_of(dir.path("r/report.json")), "layer3.npz");
  ASSERT_EQ(run_cli({"diff", "--problem", problem, "--attr", "epsilon=0.01", "--json",
                     dir.path("d.json")})
                .status,
            0);
  EXPECT_EQ(source_of(dir.path("d.json")), "layer3.npz (edited)");
  ASSERT_EQ(run_cli({"diff", "--shape", "2,3,3,4", "--json", dir.path("g.json")}).status, 0);
  EXPECT_EQ(source_of(dir.path("g.json")), "(none)");
}

// The inference mode has one name in the CLI, JSON, CSV, HTML and the trace.
TEST(CliReport, ModeWordIsTheSameInEveryFormat) {
  TempDir dir;
  const CliRun r = run_cli({"report", "--shape", "2,3,3,4", "--attr", "is_training=false", "--reps",
                            "1", "--out", dir.path("r")});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find(" inference:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("reference: cpu-reference (backend)"), std::string::npos) << r.out;

  const JsonValue j = parse_json(slurp(dir.path("r/report.json")), "report.json");
  EXPECT_EQ(j.at("problem").at("mode").string, "inference");
  ASSERT_FALSE(j.at("profiles").items.empty());
  for (const JsonValue& p : j.at("profiles").items) {
    EXPECT_EQ(p.at("mode").string, "inference");
    EXPECT_FALSE(p.at("is_training").boolean);  // TensorFlow's attr keeps its name
  }

  std::istringstream csv(slurp(dir.path("r/report.csv")));
  std::string line;
  std::getline(csv, line);
  EXPECT_EQ(line.rfind("kind,op,mode,", 0), 0u) << line;
  int rows = 0;
  while (std::getline(csv, line)) {
    EXPECT_NE(line.find(",inference,"), std::string::npos) << line;
    ++rows;
  }
  EXPECT_GT(rows, 0);

  for (const char* f : {"r/report.html", "r/trace.json", "r/report.json", "r/report.csv"}) {
    const std::string text = slurp(dir.path(f));
    EXPECT_NE(text.find("inference"), std::string::npos) << f;
    for (const char* other : {"frozen", "freeze", "\"train\"", " train "})
      EXPECT_EQ(text.find(other), std::string::npos) << f << ": " << other;
  }
}

// The report's profiles: a small problem fits the time budget, so every backend gets the 5 timed
// runs and one warm-up (the first backend's verdict run is its warm-up; the second makes one);
// --time-budget 0 makes
// exactly --reps after 2 warm-ups. The report says what was made.
TEST(CliReport, ProfilesSayHowManyRunsTheyMade) {
  TempDir dir;
  for (const char* budget : {"0.5", "0"}) {
    const std::string out = dir.path(std::string("r") + budget);
    const CliRun r =
        run_cli({"report", "--shape", "2,3,3,4", "--time-budget", budget, "--out", out});
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    const JsonValue j = parse_json(slurp(out + "/report.json"), "report.json");
    ASSERT_EQ(j.at("profiles").items.size(), 2u);
    for (const JsonValue& p : j.at("profiles").items) {
      EXPECT_EQ(p.at("reps").number, 5) << budget;
      EXPECT_EQ(p.at("wall").at("count").number, 5) << budget;
      EXPECT_EQ(p.at("warmup").number, std::string(budget) == "0" ? 2 : 1) << budget;
      EXPECT_EQ(p.at("time_budget_seconds").number, std::stod(budget));
    }
    const std::string html = slurp(out + "/report.html");
    EXPECT_EQ(html.find("Repetitions adapt to the problem") != std::string::npos,
              std::string(budget) != "0")
        << budget;
  }
}

TEST(CliReport, AFailingReportShowsCausesAndNotesBeforeAnyChart) {
  TempDir dir;
  const std::string problem = dir.path("p.npz"), saved = dir.path("saved");
  ASSERT_EQ(
      run_cli({"sample", "--shape", "2,3,3,4", "--convention", "inv_std", "--out", problem}).status,
      0);
  ASSERT_EQ(run_cli({"run", "--problem", problem, "--out", saved}).status, 0);
  // The saved outputs are right; the report reads reserve_space_2 with the wrong convention.
  const CliRun r = run_cli({"report", "--problem", problem, "--convention", "variance", "--against",
                            saved, "--backends", "cpu", "--reps", "1", "--out", dir.path("r")});
  ASSERT_EQ(r.status, 1) << r.out << r.err;
  const std::string html = slurp(dir.path("r/report.html"));
  const auto chart = html.find("<svg");
  const auto cause = html.find("reserve_space_2 holds 1/sqrt");
  const auto notes = html.find("id=\"notes\"");
  ASSERT_NE(chart, std::string::npos);
  ASSERT_NE(cause, std::string::npos);
  ASSERT_NE(notes, std::string::npos);
  EXPECT_LT(cause, chart);
  EXPECT_LT(notes, chart);
  EXPECT_LT(html.find("id=\"verdict\""), html.find("id=\"problem\""));
  const JsonValue j = parse_json(slurp(dir.path("r/report.json")), "report.json");
  ASSERT_FALSE(j.at("causes").items.empty());
  EXPECT_EQ(j.at("causes").items[0].at("code").string, "reserve-convention");
  EXPECT_EQ(j.at("causes").items[0].at("candidate").string, "cpu");
}

}  // namespace bnscope::test

namespace bnscope::test {

// profile prints the cpu backend's passes after kernel:cpu, and its trace carries the same
// phases, the passes on a thread of their own: one profile, two printers.
TEST(CliProfile, CpuPassesInTheTableAndTheTrace) {
  TempDir dir;
  const std::string trace = dir.path("t.json");
  const CliRun r = run_cli({"profile", "--shape", "4,8,8,16", "--reps", "2", "--warmup", "0",
                            "--no-copy-probe", "--trace", trace});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  std::vector<std::string> printed;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string first;
    words >> first;
    if (first.rfind("kernel:", 0) == 0 || first.rfind("pass:", 0) == 0) printed.push_back(first);
  }
  // NHWC training: a reduce pass, then a write pass.
  EXPECT_EQ(printed, (std::vector<std::string>{"kernel:cpu", "pass:reduce", "pass:write"}))
      << r.out;
  const JsonValue j = parse_json(slurp(trace), "t.json");
  std::vector<std::string> traced;
  bool passes_thread = false;
  for (const JsonValue& e : j.at("traceEvents").items) {
    if (e.at("ph").string == "M" && e.at("name").string == "thread_name")
      passes_thread |= e.at("args").at("name").string.ends_with(" passes");
    if (e.at("ph").string != "X") continue;
    const std::string& phase = e.at("args").at("phase").string;
    if (std::find(traced.begin(), traced.end(), phase) == traced.end()) traced.push_back(phase);
  }
  EXPECT_EQ(traced, printed);
  EXPECT_TRUE(passes_thread);
}

}  // namespace bnscope::test
