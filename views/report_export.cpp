#include "report_export.h"

#include <QFileInfo>
#include <QtConcurrent/QtConcurrentRun>

#include "analysis/outcome.h"
#include "background_priority.h"
#include "diff/diff_view.h"
#include "io/atomic_file.h"
#include "option_words.h"
#include "problem_controller.h"
#include "process_events.h"
#include "profile_tab/phase_table_model.h"
#include "profile_tab/profile_history_model.h"
#include "profile_tab/profile_view.h"
#include "report/report.h"
#include "report/writers.h"

namespace bnscope {

ExportResult write_report_folder(const Report& report, const QString& dir) {
  ExportResult res;
  try {
    // The folder is created when missing; messages read "report folder DIR: ...".
    OutputSet files(dir.toStdString(), report_file_names(), "report folder");
    for (const std::string& name : write_report_files(report, files))
      res.written << QString::fromStdString(name);
    if (report.profiles.empty())
      res.skipped << QObject::tr("trace.json (nothing profiled: press Profile first)");
    res.ok = true;
  } catch (const std::exception& e) {
    res.error = app_error_text(e);
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
  PipelineRequest request;
  if (!diff || !diff->ok()) {
    // Nobody compared this problem yet: the export compares the app's backend with
    // cpu-reference itself.
    diff.reset();
    request.reference = kReferenceBackend;
    request.backends = {controller.backend()};
    if (tabs.diff) request.diff = tabs.diff->options();
  }
  std::vector<Profile> profiles;
  if (tabs.profile && tabs.profile->profiledRevision() == controller.revision())
    profiles = tabs.profile->phaseModel()->profiles();
  // The pinned baseline goes along, of this problem or another, the report saying which.
  std::optional<ReportBaseline> baseline;
  if (tabs.profile)
    if (const ProfileRun* run = tabs.profile->historyModel()->history().baseline())
      baseline = report_baseline(*run, tabs.profile->historyModel()->ofCurrentProblem(*run));
  controller.beginComparisonRead();
  QFuture<ExportResult> job = QtConcurrent::run([problem, diff, request = std::move(request),
                                                 profiles, baseline = std::move(baseline), dir,
                                                 source = problem_source(controller)]() {
    yield_to_ui_thread();
    std::shared_ptr<const DiffOutcome> d = diff ? diff : compute_diff(problem, request);
    if (!d->ok()) {
      ExportResult failed;
      failed.error = d->cancelled ? QObject::tr("cancelled") : QString::fromStdString(d->error);
      return failed;
    }
    Report report = assemble_report(problem, d->result.get(), profiles, source);
    report.baseline = baseline;
    return write_report_folder(report, dir);
  });
  process_events_while([&job] { return !job.isFinished(); }, 24 * 3600 * 1000);
  controller.endComparisonRead();
  return job.result();
}

}  // namespace bnscope
