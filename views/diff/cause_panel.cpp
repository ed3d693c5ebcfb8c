#include "diff/cause_panel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

#include "diff/cause_model.h"
#include "row_table.h"
#include "table_fit.h"

namespace bnscope {

CausePanel::CausePanel(CauseModel* model, QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  table_ = make_row_table(model, this);
  layout->addWidget(table_, 1);
  auto* fix_row = new QHBoxLayout();
  apply_ = new QPushButton(tr("Apply fix and compare again"), this);
  apply_->setObjectName(QStringLiteral("diffApplyFix"));
  apply_->setEnabled(false);
  apply_->setToolTip(
      tr("Makes the change the selected cause names to the problem (an edit "
         "you can save or undo by hand) and compares again"));
  fix_row->addWidget(apply_);
  status_ = new QLabel(this);
  status_->setWordWrap(true);
  fix_row->addWidget(status_, 1);
  layout->addLayout(fix_row);
  connect(apply_, &QPushButton::clicked, this, [this] {
    const QModelIndex i = table_->currentIndex();
    emit applyRequested(i.isValid() ? i.row() : 0);
  });
  table_->setWordWrap(true);
  table_->horizontalHeader()->setStretchLastSection(false);
  // The likely cause keeps room to be read; the backend and the fix's text give way first.
  keep_columns_fitted(
      table_, {{{CauseModel::Candidate, 50}, {CauseModel::Fix, 80}, {CauseModel::Title, 180}},
               CauseModel::Title});
}

}  // namespace bnscope
