#pragma once
// One row per layer of a sweep: index, name, op, shape, dtype, the verdict of each candidate
// backend against the reference, the worst tolerance ratio and the likely cause. Sorting is the
// model's own (QTableView's header calls sort()); by default worst first, as the sweep orders it.

#include <QAbstractTableModel>
#include <memory>
#include <vector>

#include "analysis/sweep.h"

namespace bnscope {

class LayerTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Index, Name, Op, Shape, Dtype, FirstBackend };
  enum Role {
    PathRole = Qt::UserRole + 1,  // the layer's problem file
    SweepRowRole,                 // index into SweepResult::rows
    VerdictRole,                  // "agree", "disagree", "broken" or "" (not compared)
    SortRole,                     // the number or text sort() orders the column by
  };

  explicit LayerTableModel(QObject* parent = nullptr);

  // Shows result's rows worst first (broken, then by worst tolerance ratio); null clears.
  void setResult(std::shared_ptr<const SweepResult> result);
  const SweepResult* result() const { return result_.get(); }
  // The candidate backends, one verdict column each (the reference backend has none).
  const QStringList& backends() const { return backends_; }
  int worstColumn() const { return FirstBackend + static_cast<int>(backends_.size()); }
  int causeColumn() const { return worstColumn() + 1; }
  // The sweep row shown at a model row; nullptr when out of range.
  const SweepRow* rowAt(int row) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;
  void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

 private:
  QVariant sortKey(const SweepRow& row, int column) const;
  const Comparison* comparison(const SweepRow& row, int column) const;

  std::shared_ptr<const SweepResult> result_;
  QStringList backends_;
  std::vector<std::size_t> order_;  // model row -> sweep row
};

}  // namespace bnscope
