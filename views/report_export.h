#pragma once
// File > Export report: report.html, report.json, report.csv and, when the Profile tab has
// measured this problem, trace.json; with the Profile tab's pinned baseline. What the tabs
// already hold for the current problem is reused; a missing diff is computed off the UI thread.

#include <QString>
#include <QStringList>
#include <vector>

#include "analysis_tabs.h"
#include "profile/profiler.h"
#include "report/report.h"

namespace bnscope {

class ProblemController;

// ProblemInfo::source of the controller's problem (assemble_report's source).
std::string problem_source(const ProblemController& controller);

struct ExportResult {
  bool ok = false;
  QString error;                 // why it failed
  QStringList written, skipped;  // file names; a skipped one says why
};

// Writes the files into dir (created when missing). Runs the diff the Diff tab lacks in the
// background while the event loop keeps turning, so the window stays live.
ExportResult export_report(const AnalysisTabs& tabs, const ProblemController& controller,
                           const QString& dir);

// The files of report into dir as one set (write_report_files): the three report files always,
// trace.json only with profiles (an old one is removed, so the folder never mixes two problems).
// A failure leaves the earlier files as they were; its error names the folder.
ExportResult write_report_folder(const Report& report, const QString& dir);

}  // namespace bnscope
