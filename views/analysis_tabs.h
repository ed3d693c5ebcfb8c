#pragma once
// The analysis tabs (Diff, Profile) wired to the current problem, and the report export the
// main window offers from its File menu.

#include <QString>
#include <vector>

#include "profile/profiler.h"
#include "report/report.h"

class QTabWidget;

namespace bnscope {

class DiffView;
class ProblemController;
class ProfileView;
struct DiffOutcome;

struct AnalysisTabs {
  DiffView* diff = nullptr;
  ProfileView* profile = nullptr;
};

// Adds "Diff" and "Profile" tabs to tabs; both follow controller's problem.
AnalysisTabs add_analysis_tabs(QTabWidget* tabs, ProblemController* controller);

// The report of problem with a diff and profiles already computed (either may be absent).
Report analysis_report(const Problem& problem, const DiffOutcome* diff,
                       const std::vector<Profile>& profiles);

// Writes report.html, report.json, report.csv and trace.json of the controller's problem into
// dir, with the tabs' latest diff and profiles. When the Diff tab has no outcome for this very
// problem, cpu-reference and cpu are compared here, synchronously. On failure *error says why.
bool export_report(const AnalysisTabs& tabs, const ProblemController& controller,
                   const QString& dir, QString* error);

}  // namespace bnscope
