#include "report_export.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QtConcurrent/QtConcurrentRun>
#include <filesystem>

#include "background_priority.h"
#include "diff/diff_compute.h"
#include "diff/diff_view.h"
#include "io/atomic_file.h"
#include "ops/prepared.h"
#include "problem_controller.h"
#include "process_events.h"
#include "profile/phase_table_model.h"
#include "profile/profile_view.h"
#include "report/report.h"
#include "report/writers.h"

namespace bnscope {

Report analysis_report(const Problem& problem, const DiffOutcome* diff,
                       const std::vector<Profile>& profiles, const std::string& source) {
  Report r = new_report("bnscope report: " + problem.op);
  r.has_problem = true;
  r.problem = describe_problem(problem);
  r.problem.source = source;
  // As the CLI's report: the pipeline's notes, comparisons and causes.
  if (diff && diff->ok())
    set_verdict(r, *diff->result);
  else
    r.notes = prepare(problem).notes;
  r.profiles = profiles;
  add_devices(r);
  return r;
}

ExportResult write_report_folder(const Report& report, const QString& dir) {
  ExportResult res;
  try {
    const std::filesystem::path d(dir.toStdString());
    std::error_code ec;
    std::filesystem::create_directories(d, ec);
    if (ec)
      throw std::runtime_error(dir.toStdString() + ": cannot create the folder: " + ec.message());
    write_file_atomic_stream((d / "report.html").string(),
                             [&](std::ostream& os) { write_report_html(report, os); });
    write_file_atomic_stream((d / "report.json").string(),
                             [&](std::ostream& os) { write_report_json(report, os); });
    write_file_atomic_stream((d / "report.csv").string(),
                             [&](std::ostream& os) { write_report_csv(report, os); });
    res.written << QStringLiteral("report.html") << QStringLiteral("report.json")
                << QStringLiteral("report.csv");
    const QString trace = QDir(dir).filePath(QStringLiteral("trace.json"));
    if (report.profiles.empty()) {
      QFile::remove(trace);
      res.skipped << QObject::tr("trace.json (nothing profiled: press Profile first)");
    } else {
      write_file_atomic_stream(trace.toStdString(),
                               [&](std::ostream& os) { write_chrome_trace(report, os); });
      res.written << QStringLiteral("trace.json");
    }
    res.ok = true;
  } catch (const std::exception& e) {
    res.error = QString::fromUtf8(e.what());
  }
  return res;
}

std::string problem_source(const ProblemController& controller) {
  if (controller.path().isEmpty()) return {};
  const std::string name = QFileInfo(controller.path()).fileName().toStdString();
  return controller.isModified() ? name + " (edited)" : name;
}

ExportResult export_report(const AnalysisTabs& tabs, const ProblemController& controller,
                           const QString& dir) {
  // The Diff tab's reference outputs are the profile's buffers meanwhile: wait for them back.
  process_events_while([&controller] { return controller.comparisonOutputsLent(); },
                       24 * 3600 * 1000);
  const Problem problem = controller.problem();
  std::shared_ptr<const DiffOutcome> diff = tabs.diff ? tabs.diff->currentOutcome() : nullptr;
  DiffRequest request;
  if (!diff || !diff->ok()) {
    // Nobody compared this problem yet: the export compares the app's backend with
    // cpu-reference itself.
    diff.reset();
    request.candidates = {controller.backend()};
    if (tabs.diff) request.options = tabs.diff->options();
  }
  std::vector<Profile> profiles;
  if (tabs.profile && tabs.profile->profiledRevision() == controller.revision())
    profiles = tabs.profile->phaseModel()->profiles();
  controller.beginComparisonRead();
  QFuture<ExportResult> job =
      QtConcurrent::run([problem, diff, request = std::move(request), profiles, dir,
                         source = problem_source(controller)]() {
        yield_to_ui_thread();
        std::shared_ptr<const DiffOutcome> d = diff ? diff : compute_diff(problem, request);
        if (!d->ok()) {
          ExportResult failed;
          failed.error = d->cancelled ? QObject::tr("cancelled") : QString::fromStdString(d->error);
          return failed;
        }
        return write_report_folder(analysis_report(problem, d.get(), profiles, source), dir);
      });
  process_events_while([&job] { return !job.isFinished(); }, 24 * 3600 * 1000);
  controller.endComparisonRead();
  return job.result();
}

}  // namespace bnscope
