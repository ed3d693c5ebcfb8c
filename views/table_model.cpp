#include "table_model.h"

namespace bnscope {

int TableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : rows();
}

int TableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(columns_.size());
}

QVariant TableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.parent().isValid() || index.row() < 0 || index.row() >= rows() ||
      index.column() < 0 || index.column() >= columnCount())
    return {};
  return cell(index.row(), index.column(), role);
}

QVariant TableModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || section < 0 || section >= columnCount()) return {};
  const Column& c = columns_[static_cast<std::size_t>(section)];
  if (role == Qt::DisplayRole) return c.title;
  if (role == Qt::ToolTipRole && !c.tip.isEmpty()) return c.tip;
  return {};
}

}  // namespace bnscope
