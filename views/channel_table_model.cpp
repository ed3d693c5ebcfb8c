#include "channel_table_model.h"

#include <QBrush>
#include <QColor>
#include <cmath>

#include "number_text.h"

namespace bnscope {

void ChannelTableModel::setStats(ChannelStats stats) {
  beginResetModel();
  stats_ = std::move(stats);
  endResetModel();
}

int ChannelTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(stats_.channels);
}

int ChannelTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : 1 + static_cast<int>(stats_.columns.size());
}

double ChannelTableModel::value(int channel, int column) const {
  if (column == 0) return channel;
  const ChannelColumn& c = stats_.columns[static_cast<std::size_t>(column - 1)];
  return c.values[static_cast<std::size_t>(channel)];
}

QVariant ChannelTableModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
    return {};
  const double v = value(index.row(), index.column());
  const bool count = index.column() == 0 || stats_.columns[index.column() - 1].is_count;
  switch (role) {
    case Qt::DisplayRole:
      return count ? QString::number(static_cast<qint64>(v)) : number_text(v);
    case SortRole:
      return v;
    case Qt::TextAlignmentRole:
      return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ForegroundRole:
      if (!std::isfinite(v) || (count && index.column() > 0 && v > 0))
        return QBrush(QColor(220, 50, 47));
      return {};
    default:
      return {};
  }
}

QVariant ChannelTableModel::headerData(int section, Qt::Orientation o, int role) const {
  if (role != Qt::DisplayRole || o != Qt::Horizontal) return {};
  if (section == 0) return tr("channel");
  if (section < 0 || section >= columnCount()) return {};
  return QString::fromStdString(stats_.columns[static_cast<std::size_t>(section - 1)].name);
}

int ChannelTableModel::columnOf(const QString& name) const {
  for (int i = 0; i < columnCount(); ++i)
    if (headerData(i, Qt::Horizontal).toString() == name) return i;
  return -1;
}

}  // namespace bnscope
