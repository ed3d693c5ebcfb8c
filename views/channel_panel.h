#pragma once
// The per-channel view: a sortable table of ChannelStats, a chart of any column across
// channels, and for the selected channel histograms of x, y_backprop and x_backprop plus a
// heatmap of x_backprop over H x W for a chosen batch element.

#include <QWidget>
#include <memory>

class QTableView;
class QComboBox;
class QSpinBox;
class QSortFilterProxyModel;
class QChartView;
class QChart;
class QLabel;

namespace bnscope {

class ChannelTableModel;
class HeatmapWidget;
class ProblemController;
struct RunOutcome;

class ChannelPanel : public QWidget {
  Q_OBJECT
 public:
  explicit ChannelPanel(ProblemController* controller, QWidget* parent = nullptr);
  ChannelTableModel* model() const { return model_; }
  QSortFilterProxyModel* proxy() const { return proxy_; }
  QTableView* table() const { return table_; }
  QComboBox* columnBox() const { return column_; }
  QSpinBox* batchBox() const { return batch_; }
  HeatmapWidget* heatmap() const { return heatmap_; }
  QLabel* statusLabel() const { return status_; }
  QChart* columnChart() const { return chart_; }
  QChart* histogramChart(int i) const { return histograms_[i]; }
  int currentChannel() const { return channel_; }
  void selectChannel(int channel);

 private:
  void showOutcome();
  void updateColumnChart();
  void updateChannelViews();

  ProblemController* controller_;
  std::shared_ptr<const RunOutcome> outcome_;
  ChannelTableModel* model_;
  QSortFilterProxyModel* proxy_;
  QTableView* table_;
  QComboBox* column_;
  QSpinBox* batch_;
  QChart* chart_;
  QChart* histograms_[3];
  HeatmapWidget* heatmap_;
  QLabel* status_;
  int channel_ = 0;
};

}  // namespace bnscope
