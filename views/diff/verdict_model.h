#pragma once
// The verdict: one row per compared output of every comparison, pass or fail, with the
// tolerances editable in place. An edit is reported through toleranceEdited; the view re-compares
// and sets the new report (the model never computes a verdict itself).

#include <QAbstractTableModel>

#include "analysis/diff.h"

namespace bnscope {

class VerdictModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  static constexpr int SortRole = Qt::UserRole + 1;
  enum Column {
    Candidate,
    Output,
    Atol,
    Rtol,
    MaxAbs,
    MaxRel,
    MaxUlp,
    Mismatches,
    RequiredAtol,
    Verdict,
    ColumnCount
  };

  using QAbstractTableModel::QAbstractTableModel;
  void setReport(DiffReport report);
  const DiffReport& report() const { return report_; }
  // The comparison and output a row shows.
  const Comparison& comparison(int row) const;
  const OutputDiff& output(int row) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;
  Qt::ItemFlags flags(const QModelIndex& index) const override;
  bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;

 signals:
  // Tolerances apply per output name, across comparisons.
  void toleranceEdited(const QString& output, double atol, double rtol);

 private:
  DiffReport report_;
  std::vector<std::pair<int, int>> rows_;  // (comparison, output)
};

}  // namespace bnscope
