#pragma once
// The report's file forms. Each writer only reads the model.

#include <ostream>
#include <string>
#include <vector>

#include "io/atomic_file.h"
#include "report/report.h"

namespace bnscope {

void write_report_json(const Report& r, std::ostream& os);  // schema: SCHEMA.md
void write_report_csv(const Report& r, std::ostream& os);   // one row per measurement
// Chrome trace event JSON (chrome://tracing, Perfetto): one complete event per phase and
// repetition, named like the NVTX ranges, bnscope/<op>/<backend>/<phase>.
void write_chrome_trace(const Report& r, std::ostream& os);
// One self-contained page: inline CSS and SVG, the JSON form embedded, no network.
void write_report_html(const Report& r, std::ostream& os);

// report.html, report.json, report.csv and trace.json: the names of a report's file set.
std::vector<std::string> report_file_names();
// Writes the report into dir (created if missing) as one set: report.html, report.json,
// report.csv and, when the report has profiles, trace.json, all replacing the earlier ones or
// none doing so. Without profiles an earlier trace.json is removed with them, so the folder
// never mixes two problems. Returns the names written.
std::vector<std::string> write_report_files(const Report& r, const std::string& dir);
// The same into a set made before the work (OutputSet(dir, report_file_names(), what)), which
// checked the path already; the set is committed.
std::vector<std::string> write_report_files(const Report& r, OutputSet& set);

}  // namespace bnscope
