#pragma once
// The cause finder's ranked causes, each with the error before and after undoing the trap.

#include "analysis/cause_finder.h"
#include "table_model.h"

namespace bnscope {

class CauseModel : public TableModel {
  Q_OBJECT
 public:
  enum Column { Candidate, Title, Before, After, MaxAbsBefore, MaxAbsAfter, Resolves, ColumnCount };

  explicit CauseModel(QObject* parent = nullptr);
  void setCauses(std::vector<Cause> causes);
  const std::vector<Cause>& causes() const { return causes_; }

 private:
  int rows() const override { return static_cast<int>(causes_.size()); }
  QVariant cell(int row, int column, int role) const override;

  std::vector<Cause> causes_;
};

}  // namespace bnscope
