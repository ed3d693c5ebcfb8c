#pragma once
// The per-channel error table of one compared output: one row per channel.

#include <QAbstractTableModel>

#include "analysis/diff.h"

namespace bnscope {

class ChannelErrorModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  static constexpr int SortRole = Qt::UserRole + 1;  // the raw number
  enum Column { Channel, Count, Mismatches, MaxAbs, MeanAbs, MaxRel, ColumnCount };

  using QAbstractTableModel::QAbstractTableModel;
  void setChannels(std::vector<ChannelError> channels);
  const std::vector<ChannelError>& channels() const { return channels_; }
  double value(int row, int column) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

 private:
  std::vector<ChannelError> channels_;
};

}  // namespace bnscope
