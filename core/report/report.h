#pragma once
// The one report model: machine, problem, diff, causes and profiles. The HTML, JSON, CSV and
// Chrome-trace writers and the Qt views read it; nothing in it refers back to the engine's
// mutable state. Schema of the JSON form: SCHEMA.md.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/cause_finder.h"
#include "analysis/diff.h"
#include "analysis/pipeline.h"
#include "ops/note.h"
#include "ops/problem.h"
#include "profile/profile_history.h"
#include "profile/profiler.h"

namespace bnscope {

// Version 2: an input's checksum is its CRC-32 (`crc32`) instead of FNV-1a (`fnv1a64`).
inline constexpr const char* kReportSchema = "bnscope-report/2";

struct MachineInfo {
  std::string cpu_model;
  int logical_cores = 0;
  std::uint64_t memory_bytes = 0;
  std::string os;      // PRETTY_NAME of /etc/os-release
  std::string kernel;  // uname sysname and release
  std::string hostname;
  // The cpu backend's vector target and caches (Backend::code_path): its times mean little without.
  std::string cpu_code_path;
  std::vector<std::string> devices;  // accelerators, as the caller describes them
};

struct InputInfo {
  std::string name;
  DType dtype = DType::F32;
  Shape shape;
  std::string crc32;  // zip CRC-32 of the raw little-endian bytes, 8 hex digits
};

struct ProblemInfo {
  // The file the problem was read from, by its name ("big.npz", "big.npz (edited)" when changed
  // since); empty for a problem generated or built from flags.
  std::string source;
  std::string op;
  std::vector<std::pair<std::string, std::string>> attrs;  // every attr of the op, defaults filled
  std::string dtype;                                       // T as TensorFlow names it
  std::string convention;
  std::string mode;  // mode_name() of is_training; empty for the ops without modes
  std::vector<InputInfo> inputs;
};

// The profile run pinned as the baseline (the app's Profile tab) that the report's profiles are
// set against, phase by phase (compare_profiles).
struct ReportBaseline {
  std::string problem;       // describe_case of the problem it was measured on
  bool same_problem = true;  // measured on the report's problem as it is now
  std::string measured_at;   // ISO 8601 UTC
  int reps = 0;
  int threads = 0;  // 0: all
  std::vector<Profile> profiles;
  const Profile* find(std::string_view backend) const;  // null when it has none of that backend
};

struct Report {
  std::string title = "bnscope report";
  std::string created;  // ISO 8601, UTC
  std::string version;  // bnscope's
  MachineInfo machine;
  bool has_problem = false;
  ProblemInfo problem;
  std::vector<Note> notes;
  bool has_diff = false;
  DiffReport diff;
  std::vector<Cause> causes;
  std::vector<Profile> profiles;
  std::optional<ReportBaseline> baseline;
};

MachineInfo describe_machine();
ProblemInfo describe_problem(const Problem& problem);
std::string utc_now_iso8601();

// bnscope's version, from project(bnscope VERSION ...) in the top CMakeLists.txt.
std::string_view bnscope_version();

// A report with the machine, the creation time and the version filled in.
Report new_report(std::string title);

// The accelerators the report's backends ran on (Backend::device of every profile's and every
// comparison's backend), each once, in report.machine.devices. Called once the runs are in:
// a report of CPU runs does not start a GPU runtime only to name the card.
void add_devices(Report& report);

// The baseline of a history's run; same_problem: whether the caller knows it for the report's
// problem as it is now.
ReportBaseline report_baseline(const ProfileRun& run, bool same_problem);
// Each of the report's profiles set against the baseline's profile of the same backend, in the
// report's order; empty without a baseline. Profiles of backends the baseline lacks have none.
std::vector<ProfileComparison> baseline_comparisons(const Report& report);

// The notes, the comparisons and the causes of one pipeline run.
void set_verdict(Report& report, const PipelineResult& result);

// The report of one problem, as bnscope-cli report and the app's File > Export report make it:
// titled "bnscope report: " + describe_case(problem), the problem described (source:
// ProblemInfo::source), the verdict's notes, comparisons and causes when there is one (else the
// notes prepare() attaches), the profiles, and the devices all of them ran on.
Report assemble_report(const Problem& problem, const PipelineResult* verdict,
                       std::vector<Profile> profiles, std::string source = {});
// The same with the problem described already (describe_problem): its checksums read every input
// byte, which the CLI does beside the runs.
Report assemble_report(const Problem& problem, ProblemInfo info, const PipelineResult* verdict,
                       std::vector<Profile> profiles);

}  // namespace bnscope
