#include "sample_hint.h"

#include <QAction>
#include <QTabWidget>

#include "analysis_tabs.h"
#include "diff/diff_view.h"
#include "help_menu.h"
#include "ops/catalog.h"
#include "problem_controller.h"
#include "profile_tab/profile_view.h"
#include "qt_text.h"

namespace bnscope {

SampleHint::SampleHint(ProblemController* controller, QTabWidget* tabs,
                       const AnalysisTabs& analysis, QWidget* parent)
    : HintBar(parent), controller_(controller) {
  setObjectName(QStringLiteral("sampleHint"));
  hide();
  connect(controller, &ProblemController::problemOpened, this, &QWidget::hide);
  QWidget* diff = analysis.diff;
  QWidget* profile = analysis.profile;
  connect(this, &HintBar::linkActivated, this, [this, tabs, diff, profile](const QString& link) {
    if (link == QLatin1String("diff"))
      tabs->setCurrentWidget(diff);
    else if (link == QLatin1String("profile"))
      tabs->setCurrentWidget(profile);
    else if (QAction* help = help_action(window(), link))
      help->trigger();
  });
}

void SampleHint::sampleOpened() {
  const Problem& p = controller_->problem();
  QStringList what{qs(p.op)};
  if (const OpSpec* op = find_op(p.op); op && op->has_attr("data_format"))
    what << qs(attr_string(p, "data_format")) << qs(mode_name(attr_bool(p, "is_training")));
  setText(tr("<b>Built-in sample</b> (%1). Try first: <a href=\"diff\">Diff</a> compares cpu "
             "with cpu-reference (they agree). There <i>Pin baseline...</i>, choose it as "
             "<i>Reference</i>, then set <i>Reserve convention</i> to inv_std: the likely cause "
             "is named and <i>Apply fix</i> sets it back. <a href=\"profile\">Profile</a> "
             "times the run. More in <a href=\"%2\">Help &gt; Quick start</a>.")
              .arg(what.join(QStringLiteral(", ")), QString::fromLatin1(kHelpQuickStart)));
  show();
}

}  // namespace bnscope
