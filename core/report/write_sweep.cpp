#include <cmath>
#include <filesystem>
#include <numeric>
#include <sstream>

#include "io/atomic_file.h"
#include "io/json_writer.h"
#include "report/cells.h"
#include "report/report.h"
#include "report/svg_chart.h"
#include "report/sweep_writers.h"
#include "tensor/error.h"

namespace bnscope {

namespace {

std::vector<std::size_t> rows_in(const SweepResult& s, const std::vector<std::size_t>& order) {
  if (!order.empty()) return order;
  std::vector<std::size_t> all(s.rows.size());
  std::iota(all.begin(), all.end(), 0);
  return all;
}

void layer_json(JsonWriter& w, const SweepRow& r) {
  w.begin_object()
      .field("index", r.layer.index)
      .field("name", r.layer.name)
      .field("captured", r.layer.captured)
      .field("op", r.layer.op)
      .field("shape", r.shape)
      .field("dtype", r.dtype)
      .field("file", r.layer.file)
      .field("verdict", r.verdict())
      .field("passed", r.passed())
      .field("broken", r.broken())
      .field("error", r.error)
      .field("worst_tolerance_ratio", r.worst_ratio)
      .field("likely_cause", r.broken() ? std::string() : r.likely_cause());
  w.key("outputs").begin_array();
  for (const SweepOutput& o : r.outputs)
    w.begin_object()
        .field("name", o.name)
        .field("compared", o.compared)
        .field("max_abs", o.max_abs)
        .field("max_ulp", o.max_ulp)
        .field("passed", o.passed)
        .end_object();
  w.end_array();
  w.key("comparisons").begin_array();
  for (const Comparison& c : r.result.diff.comparisons) {
    w.begin_object().field("candidate", c.candidate).field("passed", c.passed);
    w.key("outputs").begin_array();
    for (const OutputDiff& o : c.outputs)
      w.begin_object()
          .field("name", o.name)
          .field("compared", o.compared)
          .field("max_abs", o.max_abs)
          .field("mean_abs", o.mean_abs)
          .field("max_ulp", o.max_ulp)
          .field("mismatches", o.mismatches)
          .field("count", o.count)
          .field("passed", o.passed)
          .end_object();
    w.end_array().end_object();
  }
  w.end_array();
  w.key("causes").begin_array();
  for (const Cause& c : r.result.causes)
    w.begin_object()
        .field("candidate", c.candidate)
        .field("code", c.code)
        .field("title", c.title)
        .field("before", c.before)
        .field("after", c.after)
        .field("resolves", c.resolves)
        .end_object();
  w.end_array().end_object();
}

constexpr const char* kSweepStyle = R"(
body{font:14px/1.45 -apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:#222;margin:0;background:#f6f7f9}
main{max-width:1180px;margin:0 auto;padding:20px 28px 60px;background:#fff;min-height:100vh}
h1{font-size:22px;margin:8px 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}
.sub{color:#666;margin:0 0 12px}table{border-collapse:collapse;margin:6px 0 12px;font-size:13px}
th,td{border:1px solid #dcdfe4;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f0f2f5;font-weight:600}td.n{text-align:right;font-family:"DejaVu Sans Mono",monospace;font-size:12px}
.badge{display:inline-block;padding:1px 9px;border-radius:10px;font-weight:600;font-size:12px;color:#fff}
.pass{background:#2e8b57}.fail{background:#c8453b}.broken{background:#8a8f98}
)";

std::string badge(const SweepRow& r) {
  const char* cls = r.broken() ? "broken" : r.passed() ? "pass" : "fail";
  return std::string("<span class=\"badge ") + cls + "\">" + html_escape(r.verdict()) + "</span>";
}

void failing_section(std::ostream& os, const SweepRow& r) {
  os << "<h2 id=\"layer-" << r.layer.index << "\">Layer " << r.layer.index << ": "
     << html_escape(r.layer.name) << " " << badge(r) << "</h2>\n<p class=\"sub\">"
     << html_escape(r.layer.op) << " " << html_escape(r.shape) << " " << html_escape(r.dtype)
     << " &middot; " << html_escape(r.layer.file) << " &middot; " << html_escape(r.layer.captured)
     << "</p>\n";
  if (r.broken()) {
    os << "<p>" << html_escape(r.error) << "</p>\n";
    return;
  }
  for (const Comparison& c : r.result.diff.comparisons) {
    os << "<h3>" << html_escape(c.candidate) << " vs " << html_escape(c.reference)
       << "</h3>\n<table>\n"
       << "<tr><th>output</th><th>max |a-b|</th><th>mean |a-b|</th><th>max ULP</th>"
          "<th>mismatches</th><th>verdict</th></tr>\n";
    for (const OutputDiff& o : c.outputs) {
      os << "<tr><td>" << html_escape(o.name) << "</td>";
      if (!o.compared) {
        os << "<td colspan=\"5\">skipped: " << html_escape(o.note) << "</td></tr>\n";
        continue;
      }
      os << "<td class=\"n\">" << format_si(o.max_abs) << "</td><td class=\"n\">"
         << format_si(o.mean_abs) << "</td><td class=\"n\">" << ulp_text(o.max_ulp)
         << "</td><td class=\"n\">" << o.mismatches << " of " << o.count << "</td><td>"
         << (o.passed ? "pass" : "FAIL") << "</td></tr>\n";
    }
    os << "</table>\n";
  }
  if (r.result.causes.empty()) os << "<p>The cause search was not run.</p>\n";
  for (const Cause& c : r.result.causes)
    os << "<p><b>Likely cause (" << html_escape(c.candidate) << "):</b> " << html_escape(c.title)
       << ". " << html_escape(c.explanation) << " Error ratio " << format_si(c.before) << " &rarr; "
       << format_si(c.after) << (c.resolves ? ", now within tolerance" : "") << ".</p>\n";
  for (const Note& n : r.result.notes)
    os << "<p class=\"sub\">" << html_escape(std::string(note_kind_name(n.kind))) << ": "
       << html_escape(note_text(n)) << "</p>\n";
}

}  // namespace

void write_sweep_json(const SweepResult& s, std::ostream& os,
                      const std::vector<std::size_t>& order) {
  JsonWriter w(os);
  const Capture& c = s.capture;
  w.begin_object().field("schema", kSweepSchema);
  w.key("capture")
      .begin_object()
      .field("dir", c.dir)
      .field("model", c.model)
      .field("tensorflow", c.tensorflow)
      .field("keras", c.keras)
      .field("device", c.device)
      .field("dtype_policy", c.dtype_policy)
      .field("loss", c.loss)
      .end_object();
  w.field("reference", s.reference);
  w.key("backends").begin_array();
  for (const std::string& b : s.backends) w.value(b);
  w.end_array();
  w.key("summary")
      .begin_object()
      .field("layers", static_cast<int>(s.rows.size()))
      .field("agree", s.agreeing())
      .field("disagree", s.disagreeing())
      .field("broken", s.broken())
      .field("passed", s.passed())
      .end_object();
  w.key("layers").begin_array();
  for (std::size_t i : rows_in(s, order)) layer_json(w, s.rows[i]);
  w.end_array().end_object();
}

void write_sweep_csv(const SweepResult& s, std::ostream& os,
                     const std::vector<std::size_t>& order) {
  os << "index,name,op,shape,dtype,output,max_abs,max_ulp,output_passed,verdict,likely_cause\n";
  for (std::size_t i : rows_in(s, order)) {
    const SweepRow& r = s.rows[i];
    const std::string head = std::to_string(r.layer.index) + ',' + csv_cell(r.layer.name) + ',' +
                             csv_cell(r.layer.op) + ',' + csv_cell(r.shape) + ',' +
                             csv_cell(r.dtype) + ',';
    const std::string tail = csv_cell(r.verdict()) + ',' + csv_cell(r.likely_cause()) + '\n';
    if (r.outputs.empty()) os << head << ",,,," << tail;
    for (const SweepOutput& o : r.outputs) {
      os << head << csv_cell(o.name) << ',';
      if (o.compared)
        os << (std::isfinite(o.max_abs) ? json_number(o.max_abs) : std::string("nan")) << ','
           << ulp_text(o.max_ulp) << ',' << (o.passed ? "true" : "false") << ',';
      else
        os << ",,,";
      os << tail;
    }
  }
}

void write_sweep_html(const SweepResult& s, std::ostream& os,
                      const std::vector<std::size_t>& order) {
  const Capture& c = s.capture;
  const std::string title = "bnscope sweep: " + (c.model.empty() ? c.dir : c.model);
  os << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>"
     << html_escape(title) << "</title>\n<style>" << kSweepStyle
     << "</style>\n</head>\n<body>\n<main>\n<h1>" << html_escape(title)
     << "</h1>\n<p class=\"sub\">TensorFlow " << html_escape(c.tensorflow) << ", Keras "
     << html_escape(c.keras) << " on " << html_escape(c.device) << " &middot; policy "
     << html_escape(c.dtype_policy) << " &middot; reference " << html_escape(s.reference)
     << " &middot; " << s.agreeing() << " agree, " << s.disagreeing() << " disagree, " << s.broken()
     << " broken of " << s.rows.size()
     << " layers</p>\n<h2>Layers</h2>\n<table>\n<tr><th>#</th><th>layer</th><th>op</th>"
        "<th>shape</th><th>dtype</th><th>worst |a-b| / ULP per output</th><th>verdict</th>"
        "<th>likely cause</th></tr>\n";
  const std::vector<std::size_t> rows = rows_in(s, order);
  for (std::size_t i : rows) {
    const SweepRow& r = s.rows[i];
    os << "<tr><td class=\"n\">" << r.layer.index << "</td><td>";
    if (!r.passed())
      os << "<a href=\"#layer-" << r.layer.index << "\">" << html_escape(r.layer.name) << "</a>";
    else
      os << html_escape(r.layer.name);
    os << "</td><td>" << html_escape(r.layer.op) << "</td><td>" << html_escape(r.shape)
       << "</td><td>" << html_escape(r.dtype) << "</td><td>";
    for (const SweepOutput& o : r.outputs)
      if (o.compared)
        os << html_escape(o.name) << ": " << format_si(o.max_abs) << " / " << ulp_text(o.max_ulp)
           << "<br>";
    os << "</td><td>" << badge(r) << "</td><td>"
       << html_escape(r.broken() ? r.error : r.likely_cause()) << "</td></tr>\n";
  }
  os << "</table>\n";
  for (std::size_t i : rows)
    if (!s.rows[i].passed()) failing_section(os, s.rows[i]);
  std::ostringstream json;
  write_sweep_json(s, json, order);
  os << "<script type=\"application/json\" id=\"bnscope-sweep\">\n"
     << json.str() << "</script>\n</main>\n</body>\n</html>\n";
}

void write_sweep_report_files(const SweepResult& s, const std::string& dir,
                              const std::vector<std::size_t>& order) {
  OutputSet set(dir, sweep_report_file_names(), "the report folder");
  write_sweep_report_files(s, set, order);
}

std::vector<std::string> sweep_report_file_names() {
  return {"report.html", "report.json", "report.csv"};
}

void write_sweep_report_files(const SweepResult& s, OutputSet& set,
                              const std::vector<std::size_t>& order) {
  set.write_stream("report.html", [&](std::ostream& os) { write_sweep_html(s, os, order); });
  set.write_stream("report.json", [&](std::ostream& os) { write_sweep_json(s, os, order); });
  set.write_stream("report.csv", [&](std::ostream& os) { write_sweep_csv(s, os, order); });
  set.commit();
}

}  // namespace bnscope
