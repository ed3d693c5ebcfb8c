#include "profile_tab/profile_history_model.h"

#include <QColor>
#include <QFont>

#include "profile_tab/phase_table_model.h"

namespace bnscope {

QDateTime local_time(std::chrono::system_clock::time_point t) {
  return QDateTime::fromMSecsSinceEpoch(
      std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count());
}

QString when_text(std::chrono::system_clock::time_point t) {
  const QDateTime local = local_time(t);
  return local.date() == QDate::currentDate() ? local.toString(QStringLiteral("HH:mm:ss"))
                                              : local.toString(QStringLiteral("yyyy-MM-dd HH:mm"));
}

ProfileHistoryModel::ProfileHistoryModel(QObject* parent) : TableModel(parent) {
  setColumns({{tr("run"), tr("The run's number in this session; \u2605 marks the baseline")},
              {tr("when")},
              {tr("backend")},
              {tr("reps")},
              {tr("threads")},
              {tr("median"), tr("Median time of the whole kernel, the figure GB/s comes from")},
              {tr("GB/s")},
              {tr("of roofline")},
              {tr("problem"), tr("Runs of another problem, or of an earlier edit, are marked")}});
}

void ProfileHistoryModel::rebuild() {
  rows_.clear();
  const std::vector<ProfileRun>& runs = history_.runs();
  for (std::size_t r = runs.size(); r-- > 0;)
    for (std::size_t p = 0; p < runs[r].profiles.size(); ++p) rows_.emplace_back(r, p);
}

std::uint64_t ProfileHistoryModel::add(ProfileRun run) {
  std::uint64_t id = 0;
  resetWith([&] {
    id = history_.add(std::move(run));
    rebuild();
  });
  return id;
}

void ProfileHistoryModel::replace(ProfileHistory history) {
  resetWith([&] {
    history_ = std::move(history);
    rebuild();
  });
  emit baselineChanged();
}

void ProfileHistoryModel::setCurrentProblem(std::uint64_t key) {
  if (key == current_) return;
  current_ = key;
  marksChanged();
}

// The rows stay as they are (and a view's selection with them): only their marks change.
void ProfileHistoryModel::marksChanged() {
  if (!rows_.empty())
    emit dataChanged(index(0, 0), index(rows() - 1, ColumnCount - 1),
                     {Qt::DisplayRole, Qt::ForegroundRole, Qt::ToolTipRole, Qt::FontRole});
}

bool ProfileHistoryModel::pin(std::uint64_t id) {
  if (!history_.pin(id)) return false;
  marksChanged();
  emit baselineChanged();
  return true;
}

void ProfileHistoryModel::clearBaseline() {
  if (!history_.baseline()) return;
  history_.clearBaseline();
  marksChanged();
  emit baselineChanged();
}

const ProfileRun& ProfileHistoryModel::runAt(int row) const {
  return history_.runs().at(rows_.at(static_cast<std::size_t>(row)).first);
}

const Profile& ProfileHistoryModel::profileAt(int row) const {
  return runAt(row).profiles.at(rows_.at(static_cast<std::size_t>(row)).second);
}

int ProfileHistoryModel::firstRow(std::uint64_t id) const {
  for (int r = 0; r < rows(); ++r)
    if (runAt(r).id == id) return r;
  return -1;
}

QVariant ProfileHistoryModel::cell(int row, int col, int role) const {
  const ProfileRun& run = runAt(row);
  const Profile& p = profileAt(row);
  const bool current = ofCurrentProblem(run);
  const ProfileRun* base = history_.baseline();
  const bool baseline = base && base->id == run.id;
  if (role == Qt::TextAlignmentRole && col != Backend && col != Problem)
    return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
  if (role == Qt::FontRole && baseline && col == Run) {
    QFont f;
    f.setBold(true);
    return f;
  }
  // Grey reads on light and dark backgrounds alike.
  if (role == Qt::ForegroundRole && !current) return QColor(128, 128, 128);
  if (role == Qt::ToolTipRole) {
    if (col == Problem)
      return current               ? QString::fromStdString(run.problem)
             : run.earlier_session ? tr("%1\nMeasured in an earlier session of the app")
                                         .arg(QString::fromStdString(run.problem))
                                   : tr("%1\nMeasured on another problem, or on an earlier edit "
                                        "of this one")
                                         .arg(QString::fromStdString(run.problem));
    if (col == Roofline) return QString::fromStdString(p.roofline_source);
    if (col == Run && baseline) return tr("The baseline later runs are compared with");
    if (col == When) return local_time(run.when).toString(Qt::ISODate);
    if (col == Run && run.earlier_session) return tr("Numbered again at this start of the app");
    return {};
  }
  if (role == SortRole) {
    switch (col) {
      case Run:
        return static_cast<qulonglong>(run.id);
      case Median:
        return p.kernel_seconds;
      case Gbps:
        return p.achieved_gbps;
      case Roofline:
        return p.roofline_fraction;
      default:
        break;
    }
  }
  if (role != Qt::DisplayRole && role != SortRole) return {};
  switch (col) {
    case Run:
      return baseline ? tr("\u2605 #%1").arg(run.id) : tr("#%1").arg(run.id);
    case When:
      return when_text(run.when);
    case Backend:
      return QString::fromStdString(p.backend);
    case Problem: {
      const QString text = QString::fromStdString(run.problem);
      return current               ? text
             : run.earlier_session ? tr("(earlier session) %1").arg(text)
                                   : tr("(other problem) %1").arg(text);
    }
    case Reps:
      return run.reps;
    case Threads:
      return run.threads > 0 ? QString::number(run.threads) : tr("all");
    case Median:
      return duration_text(p.kernel_seconds);
    case Gbps:
      return QString::number(p.achieved_gbps, 'f', 2);
    case Roofline:
      return p.roofline_gbps > 0 ? QStringLiteral("%1 %").arg(p.roofline_fraction * 100, 0, 'f', 1)
                                 : QString();
    default:
      return {};
  }
}

}  // namespace bnscope
