#include "io/atomic_file.h"
#include "report/writers.h"

namespace bnscope {

std::vector<std::string> report_file_names() {
  return {"report.html", "report.json", "report.csv", "trace.json"};
}

void write_report_files(const Report& r, const std::string& dir) {
  OutputSet set(dir, report_file_names());
  write_report_files(r, set);
}

void write_report_files(const Report& r, OutputSet& set) {
  set.write_stream("report.html", [&](std::ostream& os) { write_report_html(r, os); });
  set.write_stream("report.json", [&](std::ostream& os) { write_report_json(r, os); });
  set.write_stream("report.csv", [&](std::ostream& os) { write_report_csv(r, os); });
  set.write_stream("trace.json", [&](std::ostream& os) { write_chrome_trace(r, os); });
  set.commit();
}

}  // namespace bnscope
