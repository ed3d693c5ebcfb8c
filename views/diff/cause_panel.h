#pragma once
// The Diff tab's Causes page: the ranked causes of the comparison shown, and the button that
// applies the selected one's fix, with what applying it did. The tab decides what a fix does.

#include <QWidget>

class QLabel;
class QPushButton;
class QTableView;

namespace bnscope {

class CauseModel;

class CausePanel : public QWidget {
  Q_OBJECT
 public:
  CausePanel(CauseModel* model, QWidget* parent = nullptr);
  QPushButton* applyButton() const { return apply_; }
  QLabel* status() const { return status_; }

 signals:
  // Apply was clicked: the selected cause's row, the first when none is selected.
  void applyRequested(int row);

 private:
  QTableView* table_;
  QPushButton* apply_;
  QLabel* status_;
};

}  // namespace bnscope
