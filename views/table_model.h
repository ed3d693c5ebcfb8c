#pragma once
// The base of the views' table models: rows of plain data, a list of columns (title and
// optional header tooltip) and one sort role that carries a cell's raw value. A subclass says
// how many rows it has and what a cell holds; counting, index checks and headers live here, so
// every table behaves alike and each is testable without a window.

#include <QAbstractTableModel>
#include <vector>

namespace bnscope {

class TableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  // The raw number (or string) behind a cell, for QSortFilterProxyModel::setSortRole.
  static constexpr int SortRole = Qt::UserRole + 1;
  // Roles of subclasses start here.
  static constexpr int FirstCustomRole = Qt::UserRole + 2;

  struct Column {
    QString title;
    QString tip;  // the header's tooltip; empty for none
  };

  using QAbstractTableModel::QAbstractTableModel;

  int rowCount(const QModelIndex& parent = {}) const final;
  int columnCount(const QModelIndex& parent = {}) const final;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const final;
  QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const final;

 protected:
  // Fixed columns are set once by the constructor; columns that follow the data are set again
  // inside the reset that changes them.
  void setColumns(std::vector<Column> columns) { columns_ = std::move(columns); }
  virtual int rows() const = 0;
  // Only called for a valid row and column.
  virtual QVariant cell(int row, int column, int role) const = 0;
  // Applies change to the rows between beginResetModel and endResetModel.
  template <class Change>
  void resetWith(Change&& change) {
    beginResetModel();
    change();
    endResetModel();
  }

 private:
  std::vector<Column> columns_;
};

}  // namespace bnscope
