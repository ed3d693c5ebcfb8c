#pragma once
// One row per case of a conformance run (analysis/conformance.h), failing first: verdict, case,
// worst |a-b|, ULP, the worst tolerance ratio and the likely cause. Only reads the result.

#include <memory>

#include "analysis/conformance.h"
#include "table_model.h"

namespace bnscope {

class ConformanceTableModel : public TableModel {
  Q_OBJECT
 public:
  enum Column { Verdict, Case, MaxAbs, MaxUlp, Worst, Cause };
  explicit ConformanceTableModel(QObject* parent = nullptr);

  void setResult(std::shared_ptr<const ConformanceResult> result);  // null clears
  const ConformanceResult* result() const { return result_.get(); }
  // The result's row shown at a model row; nullptr when out of range.
  const ConformanceRow* rowAt(int row) const;

 protected:
  int rows() const override;
  QVariant cell(int row, int column, int role) const override;

 private:
  std::shared_ptr<const ConformanceResult> result_;
  std::vector<std::size_t> order_;  // model row -> result row, failing first
};

}  // namespace bnscope
