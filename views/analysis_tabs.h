#pragma once
// The analysis tabs (Diff, Profile) added to the main window's tabs, both following the
// controller's problem.

class QTabWidget;

namespace bnscope {

class DiffView;
class ProblemController;
class ProfileView;

struct AnalysisTabs {
  DiffView* diff = nullptr;
  ProfileView* profile = nullptr;
};

AnalysisTabs add_analysis_tabs(QTabWidget* tabs, ProblemController* controller);

}  // namespace bnscope
