#pragma once
// The op and its settings: op variant, backend, dtype, the catalog's attrs (data_format with an
// optional layout conversion, is_training, epsilon with a log-scale slider, ...) and the
// reserve-space convention. Built from the op catalog; every change goes to the controller.

#include <QWidget>
#include <map>

#include "ops/problem.h"

class QComboBox;
class QCheckBox;
class QDoubleSpinBox;
class QSlider;
class QFormLayout;

namespace bnscope {

class BackendPicker;
class ProblemController;

class ProblemForm : public QWidget {
  Q_OBJECT
 public:
  explicit ProblemForm(ProblemController* controller, QWidget* parent = nullptr);

  QComboBox* opBox() const { return op_; }
  QComboBox* backendBox() const;
  QComboBox* dtypeBox() const { return dtype_; }
  // The dtype box's tooltip: the memory a run of p holds at each dtype, the current one marked.
  static QString dtypeCostText(const Problem& p);
  QComboBox* conventionBox() const { return convention_; }
  QCheckBox* convertLayoutBox() const { return convert_; }
  // The editor of an attr of the current op (QComboBox, QCheckBox or QDoubleSpinBox).
  QWidget* attrEditor(const QString& name) const;
  QSlider* epsilonSlider() const { return eps_slider_; }

 private:
  void rebuildAttrs();
  void syncFromProblem();

  ProblemController* controller_;
  QFormLayout* layout_;
  QComboBox* op_;
  BackendPicker* backend_;
  QComboBox* dtype_;
  QComboBox* convention_;
  QCheckBox* convert_;
  QWidget* attrs_box_ = nullptr;
  QSlider* eps_slider_ = nullptr;
  std::map<QString, QWidget*> attr_editors_;
  std::string built_for_;
  bool syncing_ = false;
};

}  // namespace bnscope
