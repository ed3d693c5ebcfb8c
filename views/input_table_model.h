#pragma once
// The op's inputs, one row each: shape, dtype, value summary and whether it is what the op
// expects. The verdict comes from the engine's own validation, matched to the input it names.

#include <vector>

#include "analysis/channel_stats.h"
#include "ops/note.h"
#include "ops/prepared.h"
#include "ops/problem.h"
#include "table_model.h"

namespace bnscope {

class InputTableModel : public TableModel {
  Q_OBJECT
 public:
  enum Column { Name, Shape, Dtype, Min, Max, Mean, NonFinite, Status, ColumnCount };
  static constexpr int ProblemRole = FirstCustomRole;  // true when the row has a problem

  explicit InputTableModel(QObject* parent = nullptr);
  // problems: every problem validation found (outcome_problems), each in the row of the input it
  // is about; notes: the run's notes, whose warnings about an input show in its row (an input
  // TensorFlow would reject is not "ok"). known: summaries made off the UI thread (the
  // controller's run); an input whose buffer has none yet shows its figures as pending, unless it
  // is small enough to read here.
  void setProblem(const Problem& p, const std::vector<ValidationProblem>& problems,
                  const std::vector<Note>& notes = {},
                  const std::vector<InputSummary>* known = nullptr);
  // Inputs up to this many values are summarized on the spot when no summary is known.
  static constexpr std::int64_t kInlineSummaryLimit = std::int64_t{1} << 16;
  QString inputName(int row) const;
  int rowOf(const QString& name) const;
  // The row of the input a message names first; -1 when it names none.
  int rowNamedIn(const QString& message) const;

 private:
  int rows() const override { return static_cast<int>(rows_.size()); }
  QVariant cell(int row, int column, int role) const override;

  struct Row {
    QString name, shape, dtype, status, doc;
    double min = 0, max = 0, mean = 0;
    qint64 non_finite = 0;
    bool present = false, bad = false, warned = false, pending = false;
  };
  std::vector<Row> rows_;
};

}  // namespace bnscope
