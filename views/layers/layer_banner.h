#pragma once
// A line above every tab while the layer chosen in the Layers panel cannot be shown: which layer,
// why, and that the views still show the problem open before. Gone once another problem opens
// or a layer that can be shown is chosen.

#include <QLabel>

namespace bnscope {

class ProblemController;

class LayerBanner : public QLabel {
  Q_OBJECT
 public:
  LayerBanner(ProblemController* controller, QWidget* parent = nullptr);

  // LayersPanel::layerChosen: why empty hides the line.
  void layerChosen(const QString& name, const QString& why);

 private:
  ProblemController* controller_;
  QString shown_path_;  // the problem the views showed when the line appeared
};

}  // namespace bnscope
