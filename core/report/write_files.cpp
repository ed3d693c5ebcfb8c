#include <filesystem>

#include "io/atomic_file.h"
#include "report/writers.h"
#include "tensor/error.h"

namespace bnscope {

void write_report_files(const Report& r, const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) fail("--out " + dir + ": cannot create the directory: " + ec.message());
  const std::filesystem::path d(dir);
  write_file_atomic_stream((d / "report.html").string(),
                           [&](std::ostream& os) { write_report_html(r, os); });
  write_file_atomic_stream((d / "report.json").string(),
                           [&](std::ostream& os) { write_report_json(r, os); });
  write_file_atomic_stream((d / "report.csv").string(),
                           [&](std::ostream& os) { write_report_csv(r, os); });
  write_file_atomic_stream((d / "trace.json").string(),
                           [&](std::ostream& os) { write_chrome_trace(r, os); });
}

}  // namespace bnscope
