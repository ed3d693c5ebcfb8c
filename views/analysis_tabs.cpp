#include "analysis_tabs.h"

#include <QTabWidget>

#include "diff/diff_view.h"
#include "profile_tab/profile_view.h"

namespace bnscope {

AnalysisTabs add_analysis_tabs(QTabWidget* tabs, ProblemController* controller) {
  AnalysisTabs t;
  t.diff = new DiffView(controller, tabs);
  t.profile = new ProfileView(controller, tabs);
  tabs->addTab(t.diff, QObject::tr("&Diff"));
  tabs->addTab(t.profile, QObject::tr("P&rofile"));
  return t;
}

}  // namespace bnscope
