#include "diff/channel_error_model.h"

#include <QBrush>
#include <QColor>

#include "number_text.h"

namespace bnscope {

ChannelErrorModel::ChannelErrorModel(QObject* parent) : TableModel(parent) {
  setColumns({{tr("channel")},
              {tr("elements")},
              {tr("mismatches")},
              {tr("max |a-b|")},
              {tr("mean |a-b|")},
              {tr("max rel")}});
}

void ChannelErrorModel::setChannels(std::vector<ChannelError> channels) {
  beginResetModel();
  channels_ = std::move(channels);
  endResetModel();
}

double ChannelErrorModel::value(int row, int column) const {
  const ChannelError& c = channels_.at(static_cast<std::size_t>(row));
  switch (column) {
    case Channel:
      return static_cast<double>(c.channel);
    case Count:
      return static_cast<double>(c.count);
    case Mismatches:
      return static_cast<double>(c.mismatches);
    case MaxAbs:
      return c.max_abs;
    case MeanAbs:
      return c.mean_abs;
    case MaxRel:
      return c.max_rel;
    default:
      return 0;
  }
}

QVariant ChannelErrorModel::cell(int row, int column, int role) const {
  const double v = value(row, column);
  switch (role) {
    case Qt::DisplayRole:
      return column <= Mismatches ? QString::number(static_cast<qint64>(v)) : number_text(v);
    case SortRole:
      return v;
    case Qt::TextAlignmentRole:
      return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::BackgroundRole:
      if (channels_[static_cast<std::size_t>(row)].mismatches > 0)
        return QBrush(QColor(255, 225, 225));
      return {};
    default:
      return {};
  }
}

}  // namespace bnscope
