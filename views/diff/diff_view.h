#pragma once
// The Diff tab: the current problem through a reference (a backend or outputs from a file) and
// one or more candidate backends; the verdict per output with editable tolerances, the
// per-channel error table and chart, an error heatmap with the worst elements ringed, and the
// cause finder's ranked causes. Diffs run in the background; the UI never waits on them.

#include <QWidget>
#include <memory>

#include "analysis/outcome.h"
#include "heatmap_slice.h"

class QCheckBox;
class QChartView;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTableView;
class QTabWidget;
class QTemporaryDir;
class QTimer;

namespace bnscope {

class BackendPicker;
class CauseModel;
class ChannelErrorChart;
class ChannelErrorModel;
class DiffRunner;
class MarkedHeatmap;
class ProblemController;
class VerdictModel;
class WorstElementsModel;

class DiffView : public QWidget {
  Q_OBJECT
 public:
  explicit DiffView(ProblemController* controller, QWidget* parent = nullptr);
  ~DiffView() override;

  void setReferenceBackend(const QString& name);
  void setReferenceFile(const QString& path);  // .npy, .npz or a directory of .npy
  // Pins the outputs of the controller's latest run of the current problem as a named baseline,
  // offered as a reference from then on; false (and *error) when there is no such run.
  bool pinBaseline(const QString& name, QString* error = nullptr);
  // Compares with a pinned baseline.
  void setReferenceBaseline(const QString& name);
  QStringList baselines() const;
  void setCandidates(const QStringList& backends);
  QStringList candidates() const;
  void setFindCauses(bool on);
  // Re-run when the problem changes (only while the tab is shown; otherwise on showing). The
  // run waits for the controller's run of the same problem and reuses it.
  void setAutoRun(bool on) { auto_run_ = on; }

  void run();  // diffs the controller's current problem now
  bool waitForIdle(int timeoutMs = 60000);
  bool isRunning() const;
  std::shared_ptr<const DiffOutcome> outcome() const;
  // The outcome when it belongs to the controller's current problem, else null.
  std::shared_ptr<const DiffOutcome> currentOutcome() const;
  const DiffOptions& options() const { return options_; }
  void setTolerance(const QString& output, double atol, double rtol);

  // The verdict row whose details (channels, elements, heatmap) are shown.
  void selectRow(int row);
  // Applies the change cause `row` names to the problem and compares again; false when it
  // names none that applies.
  bool applyFix(int row);
  QPushButton* applyFixButton() const { return apply_fix_; }
  QLabel* fixStatus() const { return fix_status_; }
  int selectedRow() const { return selected_row_; }
  void showSlice(SliceMode mode, std::int64_t a, std::int64_t b);

  VerdictModel* verdictModel() const { return verdict_; }
  ChannelErrorModel* channelModel() const { return channels_; }
  WorstElementsModel* worstModel() const { return worst_; }
  CauseModel* causeModel() const { return causes_; }
  MarkedHeatmap* heatmap() const { return heatmap_; }
  QChartView* chartView() const;
  QLabel* verdictLabel() const { return verdict_label_; }
  QLineEdit* referenceFileEdit() const { return reference_file_; }
  BackendPicker* referencePicker() const { return reference_; }
  BackendPicker* candidatePicker() const { return candidate_box_; }
  QTabWidget* details() const { return details_; }

 signals:
  void diffFinished();

 protected:
  void showEvent(QShowEvent* e) override;
  void hideEvent(QHideEvent* e) override;

 private:
  void buildControls(QWidget* bar);
  PipelineRequest request() const;
  void finished();
  void showDetails();
  void updateHeatmap();
  void referenceChanged();
  // A backend, or a file path that is filled in.
  bool referenceReady() const;
  void problemChanged();
  void problemOpened();
  void controllerFinished();

  ProblemController* controller_;
  DiffRunner* runner_;
  DiffOptions options_;
  bool auto_run_ = true;
  bool stale_ = true;
  bool waiting_ = false;  // for the controller's run that answers run()
  // Asked while the reference's outputs were lent (ProblemController::lendComparisonOutputs).
  bool recompare_waiting_ = false;
  bool slice_waiting_ = false;
  bool details_waiting_ = false;
  bool reading_ = false;  // a re-compare runs: counted by the controller as a reader
  int selected_row_ = -1;
  SliceMode slice_mode_ = SliceMode::SpatialAtBatchChannel;
  // The selected output's two sides, owned by error_owner_: |a-b| is taken per shown slice,
  // never of the whole tensor (a real layer's would be hundreds of MB, made on the UI thread).
  std::shared_ptr<const DiffOutcome> error_owner_;
  const OutputTensor* error_ref_ = nullptr;
  const OutputTensor* error_cand_ = nullptr;
  Shape error_shape_;  // of error_ref_
  const Shape& errorShape() const;

  BackendPicker* reference_;
  QLineEdit* reference_file_;
  QPushButton* browse_;
  QPushButton* pin_;
  std::unique_ptr<QTemporaryDir> baseline_dir_;
  QStringList baselines_;
  // The problem file whose expected outputs were made the reference when it was opened.
  QString carried_reference_;
  QWidget* file_row_;
  BackendPicker* candidate_box_;
  QCheckBox* find_causes_;
  QPushButton* compare_;
  QLabel* status_;
  QLabel* verdict_label_;
  VerdictModel* verdict_;
  QTableView* verdict_table_;
  QTabWidget* details_;
  ChannelErrorModel* channels_;
  ChannelErrorChart* chart_;
  WorstElementsModel* worst_;
  MarkedHeatmap* heatmap_;
  QComboBox* slice_mode_box_;
  QSpinBox* slice_a_;
  QSpinBox* slice_b_;
  CauseModel* causes_;
  QPushButton* apply_fix_;
  QLabel* fix_status_ = nullptr;  // made after the controls, whose first reference it follows
};

}  // namespace bnscope
