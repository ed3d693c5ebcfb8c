#pragma once
// Columns fitted to the width a table has: each as wide as its contents, and when together they
// are wider than the view, the text columns named (backends, files, causes) give up width, their
// text elided, before any column of numbers or verdicts is cut or scrolled out of sight.

#include <QList>

class QTableView;

namespace bnscope {

struct ColumnFit {
  struct Elidable {
    int column;
    int min_width;  // never narrower than this
  };
  QList<Elidable> elidable;  // the columns that may be narrower than their contents
  int grow = -1;             // the column that takes what room is left over; -1: none
};

// Once, now.
void fit_columns(QTableView* table, const ColumnFit& fit);
// Now and again whenever the model resets or the view changes width.
void keep_columns_fitted(QTableView* table, const ColumnFit& fit);

}  // namespace bnscope
