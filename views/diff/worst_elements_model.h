#pragma once
// The worst elements of one compared output, worst first, with full coordinates.

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
  void setElements(std::vector<ElementError> elements);
  const std::vector<ElementError>& elements() const { return elements_; }

 private:
  int rows() const override { return static_cast<int>(elements_.size()); }
  QVariant cell(int row, int column, int role) const override;

  std::vector<ElementError> elements_;
};

// "(0, 2, 3, 1)"
QString coords_text(const std::vector<std::int64_t>& coords);

}  // namespace bnscope
