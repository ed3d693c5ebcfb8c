#include <cmath>
#include <cstdio>

#include "io/json_writer.h"
#include "report/cells.h"
#include "report/conformance_writers.h"

namespace bnscope {

namespace {

std::string xml_escape(const std::string& s) {
  std::string out;
  for (char ch : s) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        // XML 1.0 has no control characters but tab and newline.
        if (static_cast<unsigned char>(ch) >= 0x20 || ch == '\n' || ch == '\t') out += ch;
    }
  }
  return out;
}

std::string shape_of(const ConformanceCase& c) {
  return shape_str(physical_shape_of(c));
}

std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

std::string summary_line(const ConformanceRow& row) {
  std::string s = "worst |a-b| " + number_text(row.max_abs) + " (" + ulp_text(row.max_ulp) +
                  " ULP) in " + row.worst_output + ", " + number_text(row.worst_ratio) +
                  "x its tolerance";
  if (!row.cause_title.empty()) s += "; likely cause: " + row.cause_title;
  return s;
}

}  // namespace

void write_conformance_json(const ConformanceResult& r, std::ostream& os) {
  JsonWriter w(os);
  w.begin_object();
  w.field("schema", kConformanceSchema);
  w.field("backend", r.backend);
  w.field("reference", r.reference);
  w.field("passed", r.passed());
  w.key("summary").begin_object();
  w.field("cases", static_cast<std::int64_t>(r.rows.size()));
  w.field("pass", r.count(ConformanceVerdict::Pass));
  w.field("fail", r.count(ConformanceVerdict::Fail));
  w.field("error", r.count(ConformanceVerdict::Error));
  w.field("unsupported", r.count(ConformanceVerdict::Unsupported));
  w.end_object();
  w.key("cases").begin_array();
  for (const ConformanceRow& row : r.rows) {
    w.begin_object();
    w.field("variant", row.c.variant.label());
    w.field("case", row.c.shape.label);
    w.field("shape", shape_of(row.c));
    w.field("verdict", verdict_name(row.verdict));
    w.field("worst_output", row.worst_output);
    w.field("max_abs", row.max_abs);
    w.field("max_ulp", row.max_ulp);
    w.field("worst_tolerance_ratio", row.worst_ratio);
    w.field("cause", row.cause_code);
    w.field("cause_title", row.cause_title);
    w.field("detail", row.detail);
    w.field("seconds", row.seconds);
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

void write_conformance_junit(const ConformanceResult& r, std::ostream& os) {
  double total = 0;
  for (const ConformanceRow& row : r.rows) total += row.seconds;
  const std::string suite = "bnscope conformance: " + r.backend + " against " + r.reference;
  os << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  os << "<testsuites name=\"" << xml_escape(suite) << "\" tests=\"" << r.rows.size()
     << "\" failures=\"" << r.count(ConformanceVerdict::Fail) << "\" errors=\""
     << r.count(ConformanceVerdict::Error) << "\" skipped=\""
     << r.count(ConformanceVerdict::Unsupported) << "\" time=\"" << total << "\">\n";
  os << "  <testsuite name=\"" << xml_escape(suite) << "\" tests=\"" << r.rows.size()
     << "\" failures=\"" << r.count(ConformanceVerdict::Fail) << "\" errors=\""
     << r.count(ConformanceVerdict::Error) << "\" skipped=\""
     << r.count(ConformanceVerdict::Unsupported) << "\" time=\"" << total << "\">\n";
  for (const ConformanceRow& row : r.rows) {
    os << "    <testcase classname=\"" << xml_escape(r.backend + "." + row.c.variant.label())
       << "\" name=\"" << xml_escape(row.c.shape.label + " " + shape_of(row.c)) << "\" time=\""
       << row.seconds << "\"";
    switch (row.verdict) {
      case ConformanceVerdict::Pass:
        os << "/>\n";
        continue;
      case ConformanceVerdict::Fail:
        os << ">\n      <failure message=\"" << xml_escape(summary_line(row)) << "\">"
           << xml_escape(row.c.label() + "\n" + summary_line(row)) << "</failure>\n";
        break;
      case ConformanceVerdict::Error:
        os << ">\n      <error message=\"" << xml_escape(row.detail) << "\"/>\n";
        break;
      case ConformanceVerdict::Unsupported:
        os << ">\n      <skipped message=\"" << xml_escape(row.detail) << "\"/>\n";
        break;
    }
    os << "    </testcase>\n";
  }
  os << "  </testsuite>\n</testsuites>\n";
}

}  // namespace bnscope
