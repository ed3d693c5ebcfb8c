#pragma once
// The cause finder's ranked causes, each with the error before and after undoing the trap.

#include <QAbstractTableModel>

#include "analysis/cause_finder.h"

namespace bnscope {

class CauseModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  static constexpr int SortRole = Qt::UserRole + 1;
  enum Column { Candidate, Title, Before, After, MaxAbsBefore, MaxAbsAfter, Resolves, ColumnCount };

  using QAbstractTableModel::QAbstractTableModel;
  // candidates[i]: the backend causes[i] was found for.
  void setCauses(std::vector<Cause> causes, std::vector<std::string> candidates);
  const std::vector<Cause>& causes() const { return causes_; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

 private:
  std::vector<Cause> causes_;
  std::vector<std::string> candidates_;
};

}  // namespace bnscope
