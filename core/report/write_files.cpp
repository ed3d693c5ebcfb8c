#include "io/atomic_file.h"
#include "report/writers.h"

namespace bnscope {

std::vector<std::string> report_file_names() {
  return {"report.html", "report.json", "report.csv", "trace.json"};
}

std::vector<std::string> write_report_files(const Report& r, const std::string& dir) {
  OutputSet set(dir, report_file_names(), "the report folder");
  return write_report_files(r, set);
}

std::vector<std::string> write_report_files(const Report& r, OutputSet& set) {
  set.write_stream("report.html", [&](std::ostream& os) { write_report_html(r, os); });
  set.write_stream("report.json", [&](std::ostream& os) { write_report_json(r, os); });
  set.write_stream("report.csv", [&](std::ostream& os) { write_report_csv(r, os); });
  std::vector<std::string> written{"report.html", "report.json", "report.csv"};
  // No empty trace: without profiles the earlier trace.json, another run's, goes with the commit.
  if (r.profiles.empty()) {
    set.remove("trace.json");
  } else {
    set.write_stream("trace.json", [&](std::ostream& os) { write_chrome_trace(r, os); });
    written.push_back("trace.json");
  }
  set.commit();
  return written;
}

}  // namespace bnscope
