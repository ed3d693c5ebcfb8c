#include "layers/layer_banner.h"

#include <QFileInfo>

#include "problem_controller.h"

namespace bnscope {

LayerBanner::LayerBanner(ProblemController* controller, QWidget* parent)
    : QLabel(parent), controller_(controller) {
  setObjectName(QStringLiteral("layerBanner"));
  setWordWrap(true);
  // Never widens the window: the text wraps to the width the tabs have.
  setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  setMargin(4);
  setStyleSheet(QStringLiteral("color: #dc322f; font-weight: bold;"));
  setTextFormat(Qt::PlainText);
  hide();
  connect(controller_, &ProblemController::problemChanged, this, [this] {
    if (!isHidden() && controller_->path() != shown_path_) hide();
  });
}

void LayerBanner::layerChosen(const QString& name, const QString& why) {
  if (why.isEmpty()) {
    hide();
    return;
  }
  shown_path_ = controller_->path();
  const QString shown =
      shown_path_.isEmpty() ? tr("the problem open before") : QFileInfo(shown_path_).fileName();
  setText(tr("Layer %1 is broken and not loaded: %2. The views below still show %3.")
              .arg(name, why, shown));
  show();
}

}  // namespace bnscope
