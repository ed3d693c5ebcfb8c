#pragma once
// The cause search's ranked causes, each with its fitted value, confidence, the error before and
// after its fix and the fix itself; or the one pattern-only entry when no cause fits.

#include "analysis/cause_finder.h"
#include "table_model.h"

namespace bnscope {

class CauseModel : public TableModel {
  Q_OBJECT
 public:
  enum Column {
    Candidate,
    Title,
    Fitted,
    Confidence,
    Before,
    After,
    MaxAbsBefore,
    MaxAbsAfter,
    Resolves,
    Fix,
    ColumnCount
  };

  explicit CauseModel(QObject* parent = nullptr);
  void setCauses(std::vector<Cause> causes);
  const std::vector<Cause>& causes() const { return causes_; }

 private:
  int rows() const override { return static_cast<int>(causes_.size()); }
  QVariant cell(int row, int column, int role) const override;

  std::vector<Cause> causes_;
};

}  // namespace bnscope
