#pragma once
// The Conformance view: pick a backend (a kernel plugin's), run every variant it takes against
// cpu-reference in the background, and list the cases failing first. Double-clicking a case
// announces its problem; the window opens it in the Diff tab with that backend and cpu-reference.

#include <QWidget>
#include <memory>

#include "analysis/conformance.h"

class QLabel;
class QPushButton;
class QTableView;

namespace bnscope {

class BackendPicker;
class ConformanceTableModel;
template <class T>
class BackgroundJob;

struct ConformanceOutcome {
  std::shared_ptr<const ConformanceResult> result;  // null when the run could not start
  QString error;
};

class ConformancePanel : public QWidget {
  Q_OBJECT
 public:
  explicit ConformancePanel(QWidget* parent = nullptr);
  ~ConformancePanel() override;

  // Runs the conformance of backend (the picker's choice when empty) in the background.
  void run(const QString& backend = {});
  void cancel();
  bool waitForIdle(int timeoutMs = 60000);
  // Announces the case at a model row, as a double-click does.
  void activateRow(int row);

  BackendPicker* backendPicker() const { return picker_; }
  ConformanceTableModel* model() const { return model_; }
  QTableView* table() const { return table_; }
  QLabel* summaryLabel() const { return summary_; }

 signals:
  // A case was chosen: its problem and the backend checked.
  void caseActivated(const Problem& problem, const QString& backend);

 private:
  void finished(ConformanceOutcome outcome);

  BackendPicker* picker_;
  QPushButton* run_;
  QPushButton* cancel_;
  QLabel* summary_;
  QTableView* table_;
  ConformanceTableModel* model_;
  std::unique_ptr<BackgroundJob<ConformanceOutcome>> job_;
};

}  // namespace bnscope
