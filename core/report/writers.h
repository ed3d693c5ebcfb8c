#pragma once
// The report's file forms. Each writer only reads the model.

#include <ostream>
#include <string>

#include "report/report.h"

namespace bnscope {

void write_report_json(const Report& r, std::ostream& os);  // schema: SCHEMA.md
void write_report_csv(const Report& r, std::ostream& os);   // one row per measurement
// Chrome trace event JSON (chrome://tracing, Perfetto): one complete event per phase and
// repetition, named like the NVTX ranges, bnscope/<op>/<backend>/<phase>.
void write_chrome_trace(const Report& r, std::ostream& os);
// One self-contained page: inline CSS and SVG, the JSON form embedded, no network.
void write_report_html(const Report& r, std::ostream& os);

// Writes report.html, report.json, report.csv and trace.json into dir (created if missing), each
// atomically.
void write_report_files(const Report& r, const std::string& dir);

}  // namespace bnscope
