#pragma once
// A table of a model's rows as the analysis views show them: whole rows selected one at a time,
// no row numbers, compact rows in alternating colours, the last column taking what is left.

class QAbstractItemModel;
class QTableView;
class QWidget;

namespace bnscope {

QTableView* make_row_table(QAbstractItemModel* model, QWidget* parent);

}  // namespace bnscope
