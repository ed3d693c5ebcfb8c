#pragma once
// The worst elements of one compared output, worst first, with full coordinates.

#include <QAbstractTableModel>

#include "analysis/diff.h"

namespace bnscope {

class WorstElementsModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  static constexpr int SortRole = Qt::UserRole + 1;
  enum Column {
    Coords,
    Channel,
    Reference,
    Candidate,
    AbsError,
    RelError,
    Ulp,
    Outside,
    ColumnCount
  };

  using QAbstractTableModel::QAbstractTableModel;
  void setElements(std::vector<ElementError> elements);
  const std::vector<ElementError>& elements() const { return elements_; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

 private:
  std::vector<ElementError> elements_;
};

// "(0, 2, 3, 1)"
QString coords_text(const std::vector<std::int64_t>& coords);

}  // namespace bnscope
