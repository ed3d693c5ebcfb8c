#pragma once
// The per-channel view: a sortable table of ChannelStats, a chart of any column across
// channels, and for the selected channel histograms of x, y_backprop and x_backprop plus a
// heatmap of x_backprop over H x W for a chosen batch element.

#include <QString>
#include <QWidget>
#include <array>
#include <memory>
#include <optional>
#include <vector>

#include "analysis/channel_stats.h"

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

// A chart's title and every number it draws; equal (bit for bit) when drawing it again would
// change nothing.
struct ChartContent {
  QString title;
  std::vector<double> numbers;
  bool operator==(const ChartContent& o) const;
};

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
  void showHistogram(int i, const QString& name, const std::optional<Histogram>& h);

  ProblemController* controller_;
  std::shared_ptr<const RunOutcome> outcome_;
  ChannelTableModel* model_;
  QSortFilterProxyModel* proxy_;
  QTableView* table_;
  QComboBox* column_;
  QSpinBox* batch_;
  QChart* chart_;
  QChart* histograms_[3];
  // What each chart was last given, to leave it alone when a run gives it the same again.
  std::optional<ChartContent> column_drawn_;
  std::array<std::optional<ChartContent>, 3> histogram_drawn_;
  HeatmapWidget* heatmap_;
  QLabel* status_;
  int channel_ = 0;
};

}  // namespace bnscope
