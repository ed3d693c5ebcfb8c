#pragma once
// The input picker: what each input holds and whether the op accepts it, with loading
// (button or drag and drop) and generation (seeded random, or reserve spaces from the forward op).

#include <QWidget>

class QTableView;
class QSpinBox;
class QLabel;

namespace bnscope {

class InputTableModel;
class ProblemController;

class InputPanel : public QWidget {
  Q_OBJECT
 public:
  explicit InputPanel(ProblemController* controller, QWidget* parent = nullptr);
  InputTableModel* model() const { return model_; }
  QTableView* table() const { return table_; }
  QLabel* validationLabel() const { return validation_; }
  QString selectedInput() const;
  void selectInput(const QString& name);

 signals:
  // A load failed; the problem is unchanged.
  void loadFailed(const QString& message);

 protected:
  void dragEnterEvent(QDragEnterEvent* e) override;
  void dropEvent(QDropEvent* e) override;

 private:
  void refresh();
  void loadInto(const QString& path, const QString& input);

  ProblemController* controller_;
  InputTableModel* model_;
  QTableView* table_;
  QSpinBox* seed_;
  QLabel* validation_;
};

}  // namespace bnscope
