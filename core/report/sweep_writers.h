#pragma once
// A sweep's file forms: the per-layer table first, then one section per layer that disagrees.
// Each writer only reads the SweepResult.
//   JSON: {"schema": "bnscope-sweep/1", "capture": {...manifest header}, "reference": "tf",
//          "backends": [...], "summary": {"layers", "agree", "disagree", "broken", "passed"},
//          "layers": [{"index", "name", "captured", "op", "shape", "dtype", "file", "verdict",
//                      "passed", "broken", "error", "worst_tolerance_ratio", "likely_cause",
//                      "outputs": [{"name", "compared", "max_abs", "max_ulp", "passed"}],
//                      "comparisons": [{"candidate", "passed", "outputs": [{"name",
//                        "max_abs", "mean_abs", "max_ulp", "mismatches", "count", "passed"}]}],
//                      "causes": [{"candidate", "code", "title", "before", "after",
//                                  "resolves"}]}]}
//   CSV: one row per layer and output.

#include <ostream>
#include <string>
#include <vector>

#include "analysis/sweep.h"
#include "io/atomic_file.h"

namespace bnscope {

inline constexpr const char* kSweepSchema = "bnscope-sweep/1";

// order: row indices to write (all rows when empty).
void write_sweep_json(const SweepResult& s, std::ostream& os,
                      const std::vector<std::size_t>& order = {});
void write_sweep_csv(const SweepResult& s, std::ostream& os,
                     const std::vector<std::size_t>& order = {});
void write_sweep_html(const SweepResult& s, std::ostream& os,
                      const std::vector<std::size_t>& order = {});
// report.html, report.json and report.csv in dir (created if missing), as one set
// (io/atomic_file.h): all three or none replace the earlier ones.
void write_sweep_report_files(const SweepResult& s, const std::string& dir,
                              const std::vector<std::size_t>& order = {});
// The same into a set made before the work (OutputSet(dir, sweep_report_file_names(), what)),
// which checked the path then.
std::vector<std::string> sweep_report_file_names();
void write_sweep_report_files(const SweepResult& s, OutputSet& set,
                              const std::vector<std::size_t>& order = {});

}  // namespace bnscope
