#include "channel_table_model.h"

#include <QBrush>
#include <QColor>
#include <cmath>

#include "number_text.h"

namespace bnscope {

void ChannelTableModel::setStats(ChannelStats stats) {
  // The table shows the per-channel columns only: it keeps no handle on the inputs the run read
  // (a handle here would stop the controller from rewriting them in place on a layout change).
  stats.inputs.clear();
  stats.data_output = {};
  resetWith([&] {
    stats_ = std::move(stats);
    std::vector<Column> columns{{tr("channel"), {}}};
    for (const ChannelColumn& c : stats_.columns)
      columns.push_back({QString::fromStdString(c.name), {}});
    setColumns(std::move(columns));
  });
}

double ChannelTableModel::value(int channel, int column) const {
  if (column == 0) return channel;
  const ChannelColumn& c = stats_.columns[static_cast<std::size_t>(column - 1)];
  return c.values[static_cast<std::size_t>(channel)];
}

QVariant ChannelTableModel::cell(int row, int column, int role) const {
  const double v = value(row, column);
  const bool count = column == 0 || stats_.columns[static_cast<std::size_t>(column - 1)].is_count;
  switch (role) {
    case Qt::DisplayRole:
      return count ? QString::number(static_cast<qint64>(v)) : number_text(v);
    case SortRole:
      return v;
    case Qt::TextAlignmentRole:
      return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ForegroundRole:
      if (!std::isfinite(v) || (count && column > 0 && v > 0)) return QBrush(QColor(220, 50, 47));
      return {};
    default:
      return {};
  }
}

int ChannelTableModel::columnOf(const QString& name) const {
  for (int i = 0; i < columnCount(); ++i)
    if (headerData(i, Qt::Horizontal).toString() == name) return i;
  return -1;
}

}  // namespace bnscope
