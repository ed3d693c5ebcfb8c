#pragma once
// The Layers panel of a capture folder: the sweep's table (one row per layer, a verdict per
// backend, worst first), the sweep's progress with a cancel button, and what the capture is.
// Choosing a layer announces its problem file; whoever shows problems loads it.

#include <QWidget>

#include "analysis/sweep.h"

class QLabel;
class QProgressBar;
class QPushButton;
class QTableView;

namespace bnscope {

class LayerTableModel;
class SweepRunner;

class LayersPanel : public QWidget {
  Q_OBJECT
 public:
  explicit LayersPanel(QWidget* parent = nullptr);
  ~LayersPanel() override;

  // Sweeps dir in the background; the table fills when it is done. Errors land in statusLabel().
  void openCapture(const QString& dir, SweepRequest request = {});
  QString captureDir() const { return dir_; }
  // Selects a model row as a click does (announcing its layer).
  void selectRow(int row);

  LayerTableModel* model() const { return model_; }
  SweepRunner* runner() const { return runner_; }
  QTableView* table() const { return table_; }
  QLabel* summaryLabel() const { return summary_; }
  QLabel* statusLabel() const { return status_; }
  QProgressBar* progressBar() const { return progress_; }
  QPushButton* cancelButton() const { return cancel_; }

 signals:
  void captureOpened(const QString& dir);
  // A layer was chosen: path is its problem file, which also holds TensorFlow's outputs.
  void layerActivated(const QString& path);
  // The folder could not be swept (no capture, a broken manifest): no layer will be loaded.
  void captureFailed(const QString& why);
  // A layer row was chosen. why: empty when the views show that layer (it is loaded or already
  // open), else why it cannot be loaded: the views still show the problem open before.
  void layerChosen(const QString& name, const QString& why);

 private:
  void started();
  void progressed(int done, int total, const QString& layer);
  void finished();
  void currentRowChanged();
  void setStatus(const QString& text, bool error);

  QString dir_;
  QString announced_;  // the last path announced, so re-sorting does not reload it
  LayerTableModel* model_;
  SweepRunner* runner_;
  QLabel* summary_;
  QTableView* table_;
  QLabel* status_;
  QProgressBar* progress_;
  QPushButton* cancel_;
  QPushButton* resweep_;
};

}  // namespace bnscope
