#include "profile_tab/profile_history_panel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QStringList>
#include <QTableView>
#include <QVBoxLayout>

#include "profile_tab/profile_history_model.h"

namespace bnscope {

ProfileHistoryPanel::ProfileHistoryPanel(std::uint64_t current_problem, QWidget* parent)
    : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  auto* bar = new QHBoxLayout();
  bar->addWidget(new QLabel(tr("<b>History</b>"), this));
  baseline_label_ = new QLabel(this);
  baseline_label_->setObjectName(QStringLiteral("profileBaseline"));
  bar->addWidget(baseline_label_, 1);
  pin_ = new QPushButton(tr("Pin as baseline"), this);
  pin_->setObjectName(QStringLiteral("profilePin"));
  pin_->setToolTip(
      tr("Set the selected run (else the latest) as the baseline later runs are "
         "compared with"));
  bar->addWidget(pin_);
  unpin_ = new QPushButton(tr("Clear baseline"), this);
  unpin_->setObjectName(QStringLiteral("profileUnpin"));
  bar->addWidget(unpin_);
  layout->addLayout(bar);

  model_ = new ProfileHistoryModel(this);
  model_->setCurrentProblem(current_problem);
  table_ = new QTableView(this);
  table_->setObjectName(QStringLiteral("profileHistory"));
  table_->setModel(model_);
  table_->verticalHeader()->hide();
  table_->verticalHeader()->setDefaultSectionSize(22);
  // The problem takes what the figures leave, elided in the middle when that is too little:
  // the mark of another problem and the mode both stay in view (the tooltip has it whole).
  table_->horizontalHeader()->setSectionResizeMode(ProfileHistoryModel::Problem,
                                                   QHeaderView::Stretch);
  table_->setTextElideMode(Qt::ElideMiddle);
  table_->setWordWrap(false);
  table_->setAlternatingRowColors(true);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  layout->addWidget(table_, 1);

  connect(pin_, &QPushButton::clicked, this, &ProfileHistoryPanel::pinSelected);
  connect(unpin_, &QPushButton::clicked, this, &ProfileHistoryPanel::clearBaseline);
  connect(table_, &QAbstractItemView::doubleClicked, this, &ProfileHistoryPanel::pinSelected);
  connect(model_, &ProfileHistoryModel::baselineChanged, this, &ProfileHistoryPanel::showBaseline);
  showBaseline();
}

std::uint64_t ProfileHistoryPanel::add(ProfileRun run) {
  const std::uint64_t id = model_->add(std::move(run));
  pin_->setEnabled(true);
  table_->resizeColumnsToContents();
  return id;
}

void ProfileHistoryPanel::setCurrentProblem(std::uint64_t key) {
  model_->setCurrentProblem(key);
  showBaseline();
}

void ProfileHistoryPanel::pin(std::uint64_t id) {
  model_->pin(id);
}

void ProfileHistoryPanel::pinSelected() {
  const QModelIndexList rows = table_->selectionModel()->selectedRows();
  if (!rows.isEmpty())
    pin(model_->runAt(rows.front().row()).id);
  else if (!model_->history().runs().empty())
    pin(model_->history().runs().back().id);
}

void ProfileHistoryPanel::clearBaseline() {
  model_->clearBaseline();
}

void ProfileHistoryPanel::showBaseline() {
  const ProfileRun* base = model_->history().baseline();
  pin_->setEnabled(!model_->history().runs().empty());
  unpin_->setEnabled(base != nullptr);
  if (!base) {
    baseline_label_->setText(tr("No baseline: pin a run to compare later runs with it."));
    baseline_label_->setToolTip(QString());
  } else {
    QStringList backends;
    for (const Profile& p : base->profiles) backends << QString::fromStdString(p.backend);
    QString text = tr("Baseline: run #%1 of %2 (%3)")
                       .arg(base->id)
                       .arg(local_time(base->when).toString(QStringLiteral("HH:mm:ss")),
                            backends.join(QStringLiteral(", ")));
    if (!model_->ofCurrentProblem(*base)) text += tr(", of another problem");
    baseline_label_->setText(text);
    baseline_label_->setToolTip(QString::fromStdString(base->problem));
  }
  table_->resizeColumnsToContents();
  emit baselineChanged(base);
}

}  // namespace bnscope
