#pragma once
// One row per channel, one column per statistic in ChannelStats; sorts through SortRole.

#include "analysis/channel_stats.h"
#include "table_model.h"

namespace bnscope {

class ChannelTableModel : public TableModel {
  Q_OBJECT
 public:
  using TableModel::TableModel;
  // Keeps the columns and channel count; not the input summaries nor the data output's scan.
  void setStats(ChannelStats stats);
  const ChannelStats& stats() const { return stats_; }

  // Model column of a statistic (column 0 is the channel number); -1 when absent.
  int columnOf(const QString& name) const;
  double value(int channel, int column) const;

 private:
  int rows() const override { return static_cast<int>(stats_.channels); }
  QVariant cell(int row, int column, int role) const override;

  ChannelStats stats_;
};

}  // namespace bnscope
