#include "diff/channel_error_model.h"

#include <QBrush>
#include <QColor>

#include "number_text.h"

namespace bnscope {

void ChannelErrorModel::setChannels(std::vector<ChannelError> channels) {
  beginResetModel();
  channels_ = std::move(channels);
  endResetModel();
}

int ChannelErrorModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(channels_.size());
}

int ChannelErrorModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
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

QVariant ChannelErrorModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) return {};
  const double v = value(index.row(), index.column());
  switch (role) {
    case Qt::DisplayRole:
      return index.column() <= Mismatches ? QString::number(static_cast<qint64>(v))
                                          : number_text(v);
    case SortRole:
      return v;
    case Qt::TextAlignmentRole:
      return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::BackgroundRole:
      if (channels_[static_cast<std::size_t>(index.row())].mismatches > 0)
        return QBrush(QColor(255, 225, 225));
      return {};
    default:
      return {};
  }
}

QVariant ChannelErrorModel::headerData(int section, Qt::Orientation o, int role) const {
  if (role != Qt::DisplayRole || o != Qt::Horizontal) return {};
  switch (section) {
    case Channel:
      return tr("channel");
    case Count:
      return tr("elements");
    case Mismatches:
      return tr("mismatches");
    case MaxAbs:
      return tr("max |a-b|");
    case MeanAbs:
      return tr("mean |a-b|");
    case MaxRel:
      return tr("max rel");
    default:
      return {};
  }
}

}  // namespace bnscope
