#include "table_fit.h"

#include <QEvent>
#include <QHeaderView>
#include <QObject>
#include <QTableView>
#include <algorithm>

namespace bnscope {

namespace {

// Refits its table when the viewport's width changes.
class FitOnResize : public QObject {
 public:
  FitOnResize(QTableView* table, ColumnFit fit) : QObject(table), table_(table), fit_(fit) {}
  bool eventFilter(QObject*, QEvent* e) override {
    if (e->type() == QEvent::Resize) fit_columns(table_, fit_);
    return false;
  }

 private:
  QTableView* table_;
  ColumnFit fit_;
};

}  // namespace

void fit_columns(QTableView* table, const ColumnFit& fit) {
  if (!table->model()) return;
  QHeaderView* header = table->horizontalHeader();
  const int columns = table->model()->columnCount();
  // Every width is set here: a stretched last section would keep a width from a wider view.
  header->setStretchLastSection(false);
  for (int c = 0; c < columns; ++c) header->setSectionResizeMode(c, QHeaderView::Interactive);
  table->resizeColumnsToContents();
  const int room = table->viewport()->width();
  int total = 0;
  for (int c = 0; c < columns; ++c) total += table->isColumnHidden(c) ? 0 : header->sectionSize(c);
  // The elidable column with the most width above its minimum gives up width first, down to
  // the next one's margin, and so on.
  const auto spare = [&](const ColumnFit::Elidable& e) {
    return e.column < columns ? header->sectionSize(e.column) - e.min_width : 0;
  };
  while (total > room) {
    const ColumnFit::Elidable* most = nullptr;
    for (const ColumnFit::Elidable& e : fit.elidable)
      if (spare(e) > 0 && (!most || spare(e) > spare(*most))) most = &e;
    if (!most) break;  // the numbers alone are wider: the view scrolls
    int next = 0;
    for (const ColumnFit::Elidable& e : fit.elidable)
      if (&e != most && spare(e) < spare(*most)) next = std::max(next, spare(e));
    const int cut = std::max(1, std::min(spare(*most) - next, total - room));
    header->resizeSection(most->column, header->sectionSize(most->column) - cut);
    total -= cut;
  }
  if (fit.grow >= 0 && fit.grow < columns && total < room)
    header->resizeSection(fit.grow, header->sectionSize(fit.grow) + room - total);
}

void keep_columns_fitted(QTableView* table, const ColumnFit& fit) {
  table->setTextElideMode(Qt::ElideMiddle);  // a file's name keeps its start and its end
  table->viewport()->installEventFilter(new FitOnResize(table, fit));
  QObject::connect(table->model(), &QAbstractItemModel::modelReset, table,
                   [table, fit] { fit_columns(table, fit); });
  fit_columns(table, fit);
}

}  // namespace bnscope
