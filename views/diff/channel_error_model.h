#pragma once
// The per-channel error table of one compared output: one row per channel.

#include "analysis/diff.h"
#include "table_model.h"

namespace bnscope {

class ChannelErrorModel : public TableModel {
  Q_OBJECT
 public:
  enum Column { Channel, Count, Mismatches, MaxAbs, MeanAbs, MaxRel, ColumnCount };

  explicit ChannelErrorModel(QObject* parent = nullptr);
  void setChannels(std::vector<ChannelError> channels);
  const std::vector<ChannelError>& channels() const { return channels_; }
  double value(int row, int column) const;

 private:
  int rows() const override { return static_cast<int>(channels_.size()); }
  QVariant cell(int row, int column, int role) const override;

  std::vector<ChannelError> channels_;
};

}  // namespace bnscope
