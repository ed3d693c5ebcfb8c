#pragma once
// The worst elements of one compared output, worst first, with full coordinates; and, when |a-b|
// does not rank it among them, the element of the output's largest ULP distance last.

#include "analysis/diff.h"
#include "table_model.h"

namespace bnscope {

class WorstElementsModel : public TableModel {
  Q_OBJECT
 public:
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

  explicit WorstElementsModel(QObject* parent = nullptr);
  // max_ulp_row: the row that is listed for its ULP distance, not its |a-b| (-1: none).
  void setElements(std::vector<ElementError> elements, int max_ulp_row = -1);
  int maxUlpRow() const { return max_ulp_row_; }
  const std::vector<ElementError>& elements() const { return elements_; }

 private:
  int rows() const override { return static_cast<int>(elements_.size()); }
  QVariant cell(int row, int column, int role) const override;

  std::vector<ElementError> elements_;
  int max_ulp_row_ = -1;
};

// "(0, 2, 3, 1)"
QString coords_text(const std::vector<std::int64_t>& coords);

}  // namespace bnscope
