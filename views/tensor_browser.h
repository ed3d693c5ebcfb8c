#pragma once
// Any input or output as a 2-D slice: the H x W plane of one (n, c), or the N x C plane at one
// (h, w), in a zoomable heatmap.

#include <QWidget>
#include <memory>

class QComboBox;
class QSpinBox;
class QLabel;

namespace bnscope {

class HeatmapWidget;
class ProblemController;
struct RunOutcome;

class TensorBrowser : public QWidget {
  Q_OBJECT
 public:
  explicit TensorBrowser(ProblemController* controller, QWidget* parent = nullptr);
  QComboBox* tensorBox() const { return tensor_; }
  QComboBox* modeBox() const { return mode_; }
  QSpinBox* firstIndex() const { return a_; }
  QSpinBox* secondIndex() const { return b_; }
  HeatmapWidget* heatmap() const { return heatmap_; }
  // Shows the tensor with this name ("input x", "output x_backprop" or a bare name).
  bool showTensor(const QString& name);

 private:
  void refreshList();
  void updateView();

  ProblemController* controller_;
  QComboBox* tensor_;
  QComboBox* mode_;
  QSpinBox* a_;
  QSpinBox* b_;
  QLabel* a_label_;
  QLabel* b_label_;
  QLabel* info_;
  HeatmapWidget* heatmap_;
  bool had_outputs_ = false;  // once outputs appear, the data gradient is shown first
};

}  // namespace bnscope
