#pragma once
// The verdict: one row per compared output of every comparison, pass or fail, with the
// tolerances editable in place. An edit is reported through toleranceEdited; the view re-compares
// and sets the new report (the model never computes a verdict itself).

#include "analysis/diff.h"
#include "table_model.h"

namespace bnscope {

class VerdictModel : public TableModel {
  Q_OBJECT
 public:
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

  explicit VerdictModel(QObject* parent = nullptr);
  void setReport(DiffReport report);
  const DiffReport& report() const { return report_; }
  // The comparison and output a row shows.
  const Comparison& comparison(int row) const;
  const OutputDiff& output(int row) const;

  Qt::ItemFlags flags(const QModelIndex& index) const override;
  bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;

 signals:
  // Tolerances apply per output name, across comparisons.
  void toleranceEdited(const QString& output, double atol, double rtol);

 private:
  int rows() const override { return static_cast<int>(rows_.size()); }
  QVariant cell(int row, int column, int role) const override;

  DiffReport report_;
  std::vector<std::pair<int, int>> rows_;  // (comparison, output)
};

}  // namespace bnscope
