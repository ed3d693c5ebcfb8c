#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "analysis/cause_finder.h"
#include "engine/engine.h"
#include "io/json_value.h"
#include "ops/prepared.h"
#include "ops/sample.h"
#include "report/writers.h"
#include "tensor/error.h"

namespace bnscope {
namespace {

JsonValue parse(const std::string& text) {
  return parse_json(text, "report text");
}

bool has(const JsonValue& object, std::string_view key) {
  return object.find(key) != nullptr;
}

// A report with a failing diff (one channel scaled), its causes and two profiles.
Report sample_report() {
  SampleSpec spec;
  spec.shape = {2, 3, 4, 6};
  const Problem p = random_problem(spec);
  const Prepared prep = prepare(p);
  Report r = new_report("test <report> & \"quotes\"");
  r.has_problem = true;
  r.problem = describe_problem(p);
  const Result ref = run_problem(p, "cpu-reference");
  Result cand = run_problem(p, "cpu");
  Tensor& dx = cand.output("x_backprop").tensor;
  for (std::int64_t i = 1; i < dx.numel(); i += 6) dx.set(i, dx.get(i) * 2);
  r.has_diff = true;
  r.diff.comparisons.push_back(
      compare_results("cpu-reference", ref.outputs, "cpu", cand.outputs, {}, &prep.view));
  r.notes = ref.notes;
  r.notes.push_back({NoteKind::Warning, "test-note", "a note with <markup>", "x", 1});
  r.causes.push_back({"reserve-convention", "title", "re-ran", 12.5, 0.2, 1.0, 0.01, true});
  ProfileOptions o;
  o.reps = 3;
  o.warmup = 0;
  o.copy_probe = [](int, std::size_t) { return 5.0; };
  r.profiles.push_back(profile_problem(p, "cpu", o));
  r.profiles.push_back(profile_problem(p, "cpu-reference", o));
  return r;
}

const Report& report() {
  static const Report r = sample_report();
  return r;
}

template <class F>
std::string render(F f) {
  std::ostringstream os;
  f(report(), os);
  return os.str();
}

// Runs like cpu, on a "device" of its own: what a GPU backend says of its card.
class DeviceBackend : public Backend {
 public:
  DeviceBackend(std::string name, std::string device)
      : name_(std::move(name)), device_(std::move(device)) {}
  std::string_view name() const override { return name_; }
  std::string_view description() const override { return "test backend with a device"; }
  std::string device() const override { return device_; }
  void run(const Prepared& p, Result& result, const RunContext& ctx) override {
    BackendRegistry::instance().find("cpu")->run(p, result, ctx);
  }

 private:
  std::string name_, device_;
};

TEST(ReportModel, NamesTheDevicesItsBackendsRanOnOnce) {
  BackendRegistry::instance().add(std::make_unique<DeviceBackend>("test-gpu", "Card A, sm_90"));
  BackendRegistry::instance().add(std::make_unique<DeviceBackend>("test-gpu-lib", "Card A, sm_90"));
  Report r = new_report("devices");
  EXPECT_TRUE(r.machine.devices.empty());
  r.profiles.push_back(Profile{.backend = "cpu"});
  r.diff.comparisons.push_back(Comparison{.reference = "saved/outputs.npz", .candidate = "cpu"});
  add_devices(r);
  EXPECT_TRUE(r.machine.devices.empty()) << "a CPU backend or a file is no device";
  r.profiles.push_back(Profile{.backend = "test-gpu"});
  r.diff.comparisons.push_back(
      Comparison{.reference = "cpu-reference", .candidate = "test-gpu-lib"});
  add_devices(r);
  EXPECT_EQ(r.machine.devices, std::vector<std::string>{"Card A, sm_90"});
  std::ostringstream html;
  write_report_html(r, html);
  EXPECT_NE(html.str().find("<th>Device</th><td>Card A, sm_90</td>"), std::string::npos);
}

TEST(ReportModel, DescribesMachineAndProblem) {
  const Report& r = report();
  EXPECT_FALSE(r.machine.cpu_model.empty());
  EXPECT_GT(r.machine.logical_cores, 0);
  EXPECT_GT(r.machine.memory_bytes, 0u);
  // The cpu backend's vector target and the caches it plans with, as its description names them.
  EXPECT_NE(r.machine.cpu_code_path.find(" vectors; "), std::string::npos)
      << r.machine.cpu_code_path;
  EXPECT_NE(r.machine.cpu_code_path.find("L1d"), std::string::npos) << r.machine.cpu_code_path;
  EXPECT_EQ(r.problem.op, "FusedBatchNormGradV3");
  ASSERT_FALSE(r.problem.inputs.empty());
  for (const InputInfo& in : r.problem.inputs) EXPECT_EQ(in.crc32.size(), 8u);
}

// An input's checksum is zlib's CRC-32 of its raw bytes, as zlib.crc32(array.tobytes()) gives it
// (small tensors and one of several 8 MiB parts, checksummed on every core and joined).
TEST(ReportModel, InputChecksumsAreZlibCrc32OfTheRawBytes) {
  SampleSpec spec;
  spec.shape = {16, 32, 32, 260};
  const Problem p = random_problem(spec);
  const ProblemInfo info = describe_problem(p);
  ASSERT_EQ(info.inputs.size(), p.inputs.size());
  for (const InputInfo& in : info.inputs) {
    const Tensor& t = p.inputs.at(in.name);
    const auto crc = static_cast<unsigned>(
        crc32(0, static_cast<const Bytef*>(t.raw()), static_cast<uInt>(t.nbytes())));
    char hex[12];
    std::snprintf(hex, sizeof hex, "%08x", crc);
    EXPECT_EQ(in.crc32, hex) << in.name;
  }
}

TEST(ReportJson, ParsesAndHasTheSchemaKeys) {
  const JsonValue j = parse(render(write_report_json));
  EXPECT_EQ(j.at("schema").string, "bnscope-report/2");
  EXPECT_EQ(j.at("title").string, "test <report> & \"quotes\"");  // HTML-safe escapes read back
  for (const char* k :
       {"title", "created", "tool", "machine", "problem", "notes", "diff", "causes", "profiles"})
    EXPECT_TRUE(has(j, k)) << k;
  for (const char* k :
       {"cpu_model", "logical_cores", "memory_bytes", "os", "kernel", "cpu_code_path", "devices"})
    EXPECT_TRUE(has(j.at("machine"), k)) << k;
  for (const char* k : {"op", "dtype", "convention", "attrs", "inputs"})
    EXPECT_TRUE(has(j.at("problem"), k)) << k;
  const JsonValue& cmp = j.at("diff").at("comparisons").items.at(0);
  EXPECT_FALSE(j.at("diff").at("passed").boolean);
  const JsonValue& dx = cmp.at("outputs").items.at(0);
  EXPECT_EQ(dx.at("name").string, "x_backprop");
  for (const char* k :
       {"dtype", "shape", "atol", "rtol", "max_abs", "mean_abs", "max_rel", "max_ulp", "mismatches",
        "passed", "histogram", "channels", "worst", "required_atol"})
    EXPECT_TRUE(has(dx, k)) << k;
  EXPECT_EQ(dx.at("channels").items.size(), 6u);
  EXPECT_EQ(dx.at("histogram").at("labels").items.size(),
            dx.at("histogram").at("counts").items.size());
  EXPECT_EQ(dx.at("worst").items.at(0).at("coords").items.size(), 4u);
  ASSERT_EQ(j.at("profiles").items.size(), 2u);
  const JsonValue& prof = j.at("profiles").items[0];
  for (const char* k : {"backend", "wall", "phases", "bytes", "achieved_gbps", "roofline_gbps",
                        "roofline_fraction", "copy_after_gbps", "measures_speed"})
    EXPECT_TRUE(has(prof, k)) << k;
  EXPECT_TRUE(prof.at("measures_speed").boolean);
  EXPECT_EQ(prof.at("roofline_gbps").number, 5.0);
  EXPECT_EQ(j.at("causes").items.at(0).at("code").string, "reserve-convention");
}

TEST(ReportJson, NonFiniteValuesAreNull) {
  Report r = report();
  r.causes.at(0).max_abs_before = INFINITY;
  r.causes.at(0).max_abs_after = NAN;
  std::ostringstream os;
  write_report_json(r, os);
  const JsonValue doc = parse(os.str());
  const JsonValue& cause = doc.at("causes").items.at(0);
  EXPECT_EQ(cause.at("max_abs_before").kind, JsonValue::Kind::Null);
  EXPECT_EQ(cause.at("max_abs_after").kind, JsonValue::Kind::Null);
  EXPECT_EQ(cause.at("before").number, 12.5);
}

TEST(ChromeTrace, EventsAreWellFormed) {
  const JsonValue j = parse(render(write_chrome_trace));
  const JsonValue& ev = j.at("traceEvents");
  ASSERT_EQ(ev.kind, JsonValue::Kind::Array);
  int complete = 0, passes = 0;
  for (const JsonValue& e : ev.items) {
    for (const char* k : {"name", "ph", "pid", "tid"}) ASSERT_TRUE(has(e, k)) << k;
    if (e.at("ph").string != "X") continue;
    ++complete;
    ASSERT_TRUE(has(e, "ts") && has(e, "dur"));
    EXPECT_GE(e.at("dur").number, 0);
    EXPECT_GE(e.at("ts").number, 0);
    EXPECT_EQ(e.at("name").string.rfind("bnscope/FusedBatchNormGradV3/", 0), 0u)
        << e.at("name").string;
    if (e.at("name").string.find("/pass:") != std::string::npos) ++passes;
  }
  // 2 profiles x 3 reps, one kernel:cpu event each, and the cpu profile's passes.
  const Report& r = report();
  const std::size_t cpu_passes = r.profiles[0].phases.size() - 1;
  ASSERT_GT(cpu_passes, 0u);
  EXPECT_EQ(r.profiles[1].phases.size(), 1u);  // cpu-reference: the whole run only
  EXPECT_EQ(passes, static_cast<int>(3 * cpu_passes));
  EXPECT_EQ(complete, 2 * 3 + passes);
  // The passes have a thread of their own, named after the track.
  bool named = false;
  for (const JsonValue& e : ev.items)
    if (e.at("ph").string == "M" && e.at("name").string == "thread_name" &&
        e.at("args").at("name").string.find("cpu ") == 0 &&
        e.at("args").at("name").string.ends_with(" passes"))
      named = true;
  EXPECT_TRUE(named);
}

TEST(ReportCsv, EveryRowHasTheHeadersColumnCount) {
  const std::string csv = render(write_report_csv);
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "kind,op,mode,backend,reference,output,channel,phase,metric,value,unit");
  int rows = 0;
  while (std::getline(in, line)) {
    int cols = 1;
    bool quoted = false;
    for (char c : line) {
      if (c == '"') quoted = !quoted;
      if (c == ',' && !quoted) ++cols;
    }
    EXPECT_EQ(cols, 11) << line;
    ++rows;
  }
  EXPECT_GT(rows, 20);
}

// Checks that every non-void element is closed in order; returns the first problem or "".
std::string tag_balance(const std::string& html) {
  static const std::regex tag(R"(<(/?)([a-zA-Z][a-zA-Z0-9]*)[^>]*?(/?)>)");
  const std::string voids = " meta br hr img input link ";
  std::vector<std::string> stack;
  std::string body = html;
  // Script contents are not markup.
  for (auto p = body.find("<script"); p != std::string::npos; p = body.find("<script", p + 1)) {
    const auto open_end = body.find('>', p);
    const auto close = body.find("</script>", open_end);
    if (close == std::string::npos) return "unterminated script";
    body.erase(open_end + 1, close - open_end - 1);
  }
  for (auto it = std::sregex_iterator(body.begin(), body.end(), tag); it != std::sregex_iterator();
       ++it) {
    const std::string name = (*it)[2];
    if ((*it)[3] == "/" || voids.find(" " + name + " ") != std::string::npos) continue;
    if ((*it)[1] == "/") {
      if (stack.empty() || stack.back() != name) return "unexpected </" + name + ">";
      stack.pop_back();
    } else {
      stack.push_back(name);
    }
  }
  return stack.empty() ? "" : "unclosed <" + stack.back() + ">";
}

TEST(ReportHtml, IsBalancedAndHasTheSections) {
  const std::string html = render(write_report_html);
  EXPECT_EQ(tag_balance(html), "");
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  for (const char* s :
       {"id=\"problem\">Problem</h2>", "id=\"diff\">Diff", "id=\"causes\">Likely causes</h2>",
        "id=\"profile\">Profile</h2>", "id=\"machine\">Machine</h2>", "id=\"notes\">Notes</h2>",
        "<svg", "id=\"bnscope-report\""})
    EXPECT_NE(html.find(s), std::string::npos) << s;
  EXPECT_EQ(
      html.find("http://") == std::string::npos || html.find("src=\"http") == std::string::npos,
      true);
  EXPECT_EQ(html.find("<script src"), std::string::npos);                // nothing fetched
  EXPECT_NE(html.find("test &lt;report&gt; &amp;"), std::string::npos);  // escaped title
  EXPECT_EQ(html.find("<markup>"), std::string::npos);
  // The embedded JSON is the report itself.
  const auto a = html.find("id=\"bnscope-report\">") + 20;
  const auto b = html.find("</script>", a);
  EXPECT_EQ(parse(html.substr(a, b - a)).at("schema").string, "bnscope-report/2");
}

TEST(ReportHtml, SaysWhichProfilesAreAnEmulationsTimes) {
  const std::string note = "the times of an emulation";
  EXPECT_EQ(render(write_report_html).find(note), std::string::npos);
  Report r = report();
  r.profiles.at(1).backend = "cuda-emu";
  r.profiles.at(1).measures_speed = false;
  std::ostringstream html, json;
  write_report_html(r, html);
  EXPECT_NE(html.str().find("cuda-emu: " + note), std::string::npos);
  write_report_json(r, json);
  EXPECT_FALSE(parse(json.str()).at("profiles").items.at(1).at("measures_speed").boolean);
}

TEST(ReportJson, GivesTheWarmUpRunsMade) {
  Report r = report();
  r.profiles.at(0).warmup = 7;
  std::ostringstream json;
  write_report_json(r, json);
  const auto parsed = parse(json.str());
  const auto& profile = parsed.at("profiles").items.at(0);
  EXPECT_EQ(profile.at("warmup").number, 7);
  EXPECT_EQ(profile.find("calibration_runs"), nullptr);
}

// The report with a baseline: its cpu profile twice as fast in every phase as the report's, taken
// a minute before and of another problem; no cpu-reference in it, and a backend only it has.
Report report_with_baseline() {
  Report r = report();
  ProfileRun run;
  Profile cpu = r.profiles.at(0);
  for (PhaseStats& ps : cpu.phases) ps.stats.median /= 2;
  cpu.wall.median /= 2;
  Profile other;
  other.backend = "tf";
  other.kernel_seconds = 2e-3;
  run.profiles = {cpu, other};
  run.problem = "FusedBatchNormGradV3 [2,3,4,6] float32 NCHW training";
  run.reps = 7;
  run.threads = 2;
  run.when = std::chrono::system_clock::from_time_t(1767225600);  // 2026-01-01T00:00:00Z
  r.baseline = report_baseline(run, false);
  return r;
}

TEST(ReportJson, CarriesTheBaselineAndItsDeltas) {
  EXPECT_EQ(parse(render(write_report_json)).at("baseline").kind, JsonValue::Kind::Null);
  const Report r = report_with_baseline();
  std::ostringstream os;
  write_report_json(r, os);
  const JsonValue j = parse(os.str());
  const JsonValue& b = j.at("baseline");
  EXPECT_EQ(b.at("problem").string, "FusedBatchNormGradV3 [2,3,4,6] float32 NCHW training");
  EXPECT_FALSE(b.at("same_problem").boolean);
  EXPECT_EQ(b.at("measured_at").string, "2026-01-01T00:00:00Z");
  EXPECT_EQ(b.at("reps").number, 7);
  EXPECT_EQ(b.at("threads").number, 2);
  ASSERT_EQ(b.at("profiles").items.size(), 2u);
  EXPECT_EQ(b.at("profiles").items[1].at("backend").string, "tf");
  // One comparison: cpu's; cpu-reference has no baseline profile.
  ASSERT_EQ(b.at("comparisons").items.size(), 1u);
  const JsonValue& c = b.at("comparisons").items[0];
  EXPECT_EQ(c.at("backend").string, "cpu");
  const Profile& cpu = r.profiles.at(0);
  ASSERT_EQ(c.at("phases").items.size(), cpu.phases.size());
  for (std::size_t i = 0; i < cpu.phases.size(); ++i) {
    const JsonValue& d = c.at("phases").items[i];
    EXPECT_EQ(d.at("phase").string, cpu.phases[i].phase);
    EXPECT_DOUBLE_EQ(d.at("seconds").number, cpu.phases[i].stats.median);
    EXPECT_DOUBLE_EQ(d.at("baseline_seconds").number, cpu.phases[i].stats.median / 2);
    EXPECT_DOUBLE_EQ(d.at("percent").number, 100.0);
  }
  // The first phase is the whole cpu run, charged every byte: half the baseline's bandwidth.
  const JsonValue& k = c.at("phases").items[0];
  EXPECT_DOUBLE_EQ(k.at("delta_gbps").number, -k.at("gbps").number);
  EXPECT_DOUBLE_EQ(c.at("wall").at("percent").number, 100.0);
  EXPECT_EQ(c.at("only_in_profile").items.size(), 0u);
}

TEST(ReportHtml, ShowsTheBaselineWithDeltas) {
  EXPECT_EQ(render(write_report_html).find("id=\"baseline\""), std::string::npos);
  std::ostringstream os;
  write_report_html(report_with_baseline(), os);
  const std::string html = os.str();
  EXPECT_EQ(tag_balance(html), "");
  EXPECT_NE(html.find("id=\"baseline\">Against the baseline</h2>"), std::string::npos);
  EXPECT_NE(html.find("2026-01-01T00:00:00Z"), std::string::npos);
  EXPECT_NE(html.find("(another problem than this report's)"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"n\">+100 %</td>"), std::string::npos);
  EXPECT_NE(html.find("cpu-reference: not in the baseline"), std::string::npos);
  EXPECT_NE(html.find("tf: in the baseline only (2 ms median)"), std::string::npos);
  // Without profiles of its own the report lists what the baseline holds, and no empty table.
  Report alone = report_with_baseline();
  alone.profiles.clear();
  std::ostringstream bare;
  write_report_html(alone, bare);
  EXPECT_EQ(tag_balance(bare.str()), "");
  EXPECT_EQ(bare.str().find("<th>baseline ms</th>"), std::string::npos);
  EXPECT_NE(bare.str().find("cpu: in the baseline only"), std::string::npos);
}

TEST(ReportCsv, HasTheBaselinesRows) {
  const Report r = report_with_baseline();
  std::ostringstream os;
  write_report_csv(r, os);
  std::istringstream in(os.str());
  std::string line;
  int baseline = 0;
  std::string percent_row;
  while (std::getline(in, line)) {
    if (line.rfind("baseline,", 0) != 0) continue;
    ++baseline;
    if (line.find(",kernel:cpu,delta_percent,") != std::string::npos) percent_row = line;
  }
  // Per cpu phase and the wall: baseline_median, delta_median, delta_percent, and the two
  // bandwidth rows for the phases charged bytes.
  EXPECT_GE(baseline, 3 * static_cast<int>(r.profiles.at(0).phases.size() + 1));
  EXPECT_EQ(percent_row,
            "baseline,FusedBatchNormGradV3,training,cpu,,,,kernel:cpu,delta_percent,100,%");
}

TEST(ReportHtml, TagCheckerCatchesMistakes) {
  EXPECT_NE(tag_balance("<div><p></div>"), "");
  EXPECT_NE(tag_balance("<table><tr><td>x</td></tr>"), "");
  EXPECT_EQ(tag_balance("<p>a<br>b</p><svg><rect/></svg>"), "");
}

TEST(ReportFiles, WritesAllFour) {
  const auto dir = std::filesystem::temp_directory_path() / "bnscope_report_files_test";
  std::filesystem::remove_all(dir);
  write_report_files(report(), dir.string());
  for (const char* f : {"report.html", "report.json", "report.csv", "trace.json"})
    EXPECT_GT(std::filesystem::file_size(dir / f), 100u) << f;
  std::filesystem::remove_all(dir);
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// A scratch folder of its own, removed afterwards.
struct ReportDir {
  std::filesystem::path path;
  explicit ReportDir(const std::string& name)
      : path(std::filesystem::temp_directory_path() / name) {
    std::filesystem::remove_all(path);
  }
  ~ReportDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

// A small problem with its verdict (cpu against cpu-reference) and a short cpu profile.
struct Compared {
  Problem problem;
  PipelineResult verdict;
  Profile profile;
};
Compared compared_sample() {
  SampleSpec spec;
  spec.shape = {2, 3, 4, 6};
  Compared c{random_problem(spec), {}, {}};
  PipelineRequest request;
  request.backends = {"cpu-reference", "cpu"};
  c.verdict = run_pipeline(c.problem, request);
  ProfileOptions options;
  options.reps = 2;
  options.measure_copy = false;
  c.profile = profile_problem(c.problem, "cpu", options);
  return c;
}

// The one report of a problem, as the CLI and the app make it.
TEST(AssembleReport, TitlesDescribesAndTakesTheVerdictOrThePreparedNotes) {
  const Compared c = compared_sample();
  const Problem& p = c.problem;
  const PipelineResult& verdict = c.verdict;
  Report r = assemble_report(p, &verdict, {c.profile}, "given.npz");
  EXPECT_EQ(r.title, "bnscope report: " + describe_case(p));
  EXPECT_NE(r.title.find("[2,3,4,6]"), std::string::npos) << r.title;
  EXPECT_TRUE(r.has_problem);
  EXPECT_EQ(r.problem.source, "given.npz");
  EXPECT_EQ(r.problem.op, p.op);
  EXPECT_EQ(r.problem.inputs.size(), p.inputs.size());
  EXPECT_TRUE(r.has_diff);
  EXPECT_EQ(r.diff.comparisons.size(), verdict.diff.comparisons.size());
  ASSERT_EQ(r.profiles.size(), 1u);
  EXPECT_EQ(r.profiles.front().backend, "cpu");
  EXPECT_FALSE(r.created.empty());
  // Without a verdict: no diff, and the notes prepare() attaches (here the inputs' NaN).
  Problem bad = p;
  bad.inputs.at("x").set(0, std::nan(""));
  r = assemble_report(bad, nullptr, {});
  EXPECT_FALSE(r.has_diff);
  EXPECT_TRUE(r.profiles.empty());
  EXPECT_TRUE(r.problem.source.empty());
  const std::vector<Note> notes = prepare(bad).notes;
  ASSERT_FALSE(notes.empty());
  ASSERT_EQ(r.notes.size(), notes.size());
  EXPECT_EQ(r.notes.front().message, notes.front().message);
}

// Without profiles the set is three files, and an earlier report's trace.json goes with the
// commit: the folder never mixes two problems. With profiles it is four.
TEST(ReportFiles, ATraceOnlyWithProfilesAndNoEarlierOneLeftBehind) {
  const ReportDir dir("bnscope_report_trace_test");
  const Compared c = compared_sample();
  const Report profiled = assemble_report(c.problem, &c.verdict, {c.profile});
  const std::vector<std::string> four = report_file_names();
  EXPECT_EQ(write_report_files(profiled, dir.path.string()), four);
  for (const std::string& f : four) EXPECT_GT(std::filesystem::file_size(dir.path / f), 100u) << f;

  SampleSpec spec;
  spec.shape = {1, 2, 2, 3};
  const Problem other = random_problem(spec);
  const Report plain = assemble_report(other, nullptr, {});
  OutputSet set(dir.path.string(), report_file_names(), "--out");
  EXPECT_EQ(write_report_files(plain, set),
            (std::vector<std::string>{"report.html", "report.json", "report.csv"}));
  EXPECT_FALSE(std::filesystem::exists(dir.path / "trace.json"));
  std::vector<std::string> left;
  for (const auto& e : std::filesystem::directory_iterator(dir.path))
    left.push_back(e.path().filename().string());
  std::sort(left.begin(), left.end());
  EXPECT_EQ(left, (std::vector<std::string>{"report.csv", "report.html", "report.json"}));
  // The three are the new problem's.
  const JsonValue written = parse(read_text(dir.path / "report.json"));
  EXPECT_EQ(written.at("title").string, plain.title);
  EXPECT_NE(plain.title, profiled.title);
  std::ostringstream csv;
  write_report_csv(plain, csv);
  EXPECT_EQ(read_text(dir.path / "report.csv"), csv.str());
}

// A failure while the set is written (here its temporary folder gone) leaves every earlier file
// as it was, the trace that would have been removed too.
TEST(ReportFiles, AFailedWriteLeavesTheEarlierFiles) {
  const ReportDir dir("bnscope_report_failed_test");
  write_report_files(report(), dir.path.string());
  std::map<std::string, std::string> before;
  for (const std::string& f : report_file_names()) before[f] = read_text(dir.path / f);
  Report plain = report();
  plain.profiles.clear();
  plain.title = "another report";
  OutputSet set(dir.path.string(), report_file_names(), "--out");
  int temps = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.path))
    if (e.path().filename().string().rfind(".bnscope-tmp-", 0) == 0) {
      std::filesystem::remove_all(e.path());
      ++temps;
    }
  ASSERT_EQ(temps, 1);
  EXPECT_THROW(write_report_files(plain, set), Error);
  for (const std::string& f : report_file_names())
    EXPECT_EQ(read_text(dir.path / f), before[f]) << f;
}

}  // namespace
}  // namespace bnscope
