#include "profile_tab/profile_history_panel.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QStringList>
#include <QTableView>
#include <QVBoxLayout>

#include "io/atomic_file.h"
#include "profile/profile_history_file.h"
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
  connect(model_, &ProfileHistoryModel::baselineChanged, this, &ProfileHistoryPanel::save);
  showBaseline();
}

QString ProfileHistoryPanel::keepIn(const QString& path) {
  file_.clear();  // nothing is written while the file is read
  QString told;
  if (QFileInfo::exists(path)) {
    // A history is a few hundred kB; anything far past that is not one.
    constexpr qint64 kMaxBytes = qint64{64} << 20;
    QFile f(path);
    QString why;
    ProfileHistory read;
    if (QFileInfo(path).size() > kMaxBytes) {
      why = tr("larger than 64 MiB, not a profile history");
    } else if (!f.open(QIODevice::ReadOnly)) {
      why = f.errorString();
    } else {
      const QByteArray text = f.readAll();
      f.close();
      try {
        read = parse_profile_history(std::string_view(text.constData(), text.size()),
                                     "profile history " + path.toStdString());
      } catch (const std::exception& e) {
        why = QString::fromStdString(e.what());
      }
    }
    if (why.isEmpty()) {
      model_->replace(std::move(read));
      table_->resizeColumnsToContents();
    } else {
      // Set aside, not written over: the runs in it may still be wanted.
      const QString aside = path + QStringLiteral(".unreadable");
      QFile::remove(aside);
      if (!QFile::rename(path, aside))
        return tr("The profile history %1 could not be read (%2) nor set aside; it is kept for "
                  "this session only.")
            .arg(path, why);
      told = tr("The profile history could not be read (%1); it was set aside as %2 and a new "
                "one begun.")
                 .arg(why, aside);
    }
  }
  file_ = path;
  return told;
}

void ProfileHistoryPanel::save() {
  if (file_.isEmpty()) return;
  try {
    QDir().mkpath(QFileInfo(file_).absolutePath());
    write_file_atomic(file_.toStdString(), profile_history_json(model_->history()));
  } catch (const std::exception& e) {
    emit saveFailed(tr("The profile history could not be saved to %1: %2")
                        .arg(file_, QString::fromStdString(e.what())));
  }
}

std::uint64_t ProfileHistoryPanel::add(ProfileRun run) {
  const std::uint64_t id = model_->add(std::move(run));
  pin_->setEnabled(true);
  table_->resizeColumnsToContents();
  save();
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
                       .arg(when_text(base->when), backends.join(QStringLiteral(", ")));
    if (base->earlier_session)
      text += tr(", of an earlier session");
    else if (!model_->ofCurrentProblem(*base))
      text += tr(", of another problem");
    baseline_label_->setText(text);
    baseline_label_->setToolTip(QString::fromStdString(base->problem));
  }
  table_->resizeColumnsToContents();
  emit baselineChanged(base);
}

}  // namespace bnscope
