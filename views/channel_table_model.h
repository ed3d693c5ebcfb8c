#pragma once
// One row per channel, one column per statistic in ChannelStats; sorts through SortRole.

#include <QAbstractTableModel>

#include "analysis/channel_stats.h"

namespace bnscope {

class ChannelTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  static constexpr int SortRole = Qt::UserRole + 1;  // the raw double

  using QAbstractTableModel::QAbstractTableModel;
  void setStats(ChannelStats stats);
  const ChannelStats& stats() const { return stats_; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;
  // Model column of a statistic (column 0 is the channel number); -1 when absent.
  int columnOf(const QString& name) const;
  double value(int channel, int column) const;

 private:
  ChannelStats stats_;
};

}  // namespace bnscope
