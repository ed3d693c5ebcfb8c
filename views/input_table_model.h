#pragma once
// The op's inputs, one row each: shape, dtype, value summary and whether it is what the op
// expects. The verdict comes from the engine's own validation, matched to the input it names.

#include <QAbstractTableModel>
#include <vector>

#include "ops/problem.h"

namespace bnscope {

class InputTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Name, Shape, Dtype, Min, Max, Mean, NonFinite, Status, ColumnCount };
  static constexpr int ProblemRole = Qt::UserRole + 1;  // true when the row has a problem

  using QAbstractTableModel::QAbstractTableModel;
  // error: the message validation failed with, if it did.
  void setProblem(const Problem& p, const QString& error);
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;
  QString inputName(int row) const;
  int rowOf(const QString& name) const;

 private:
  struct Row {
    QString name, shape, dtype, status, doc;
    double min = 0, max = 0, mean = 0;
    qint64 non_finite = 0;
    bool present = false, bad = false;
  };
  std::vector<Row> rows_;
};

}  // namespace bnscope
