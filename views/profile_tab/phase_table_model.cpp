#include "profile_tab/phase_table_model.h"

#include <QColor>
#include <cmath>
#include <limits>

#include "profile/profile_batch.h"
#include "profile/traffic.h"

namespace bnscope {

QString duration_text(double s) {
  if (!std::isfinite(s)) return QStringLiteral("-");
  const double a = std::fabs(s);
  if (a >= 1) return QStringLiteral("%1 s").arg(s, 0, 'f', 3);
  if (a >= 1e-3) return QStringLiteral("%1 ms").arg(s * 1e3, 0, 'f', 3);
  if (a >= 1e-6) return QStringLiteral("%1 us").arg(s * 1e6, 0, 'f', 2);
  return QStringLiteral("%1 ns").arg(s * 1e9, 0, 'f', 1);
}

PhaseTableModel::PhaseTableModel(QObject* parent) : TableModel(parent) {
  setColumnsFor();
}

void PhaseTableModel::setColumnsFor() {
  std::vector<TableModel::Column> columns = {
      {tr("backend")},
      {tr("phase")},
      {tr("reps")},
      {tr("min")},
      {tr("median")},
      {tr("max")},
      {tr("bytes"), tr("Minimum traffic: each input read once, each output written once")},
      {tr("GB/s")},
      {tr("of roofline")}};
  if (hasBaseline()) {
    const QString tip =
        tr("This median minus the baseline's (run %1) of the same backend and phase; negative is "
           "faster")
            .arg(baseline_name_);
    columns.push_back({tr("\u0394 vs %1").arg(baseline_name_), tip});
    columns.push_back({tr("\u0394 %"), tip});
  }
  setColumns(std::move(columns));
}

void PhaseTableModel::compare() {
  comparisons_.assign(profiles_.size(), std::nullopt);
  for (std::size_t p = 0; p < profiles_.size(); ++p)
    for (const Profile& b : baseline_)
      if (b.backend == profiles_[p].backend) {
        comparisons_[p] = compare_profiles(profiles_[p], b);
        break;
      }
}

void PhaseTableModel::setProfiles(std::vector<Profile> profiles) {
  beginResetModel();
  profiles_ = std::move(profiles);
  rows_.clear();
  for (std::size_t p = 0; p < profiles_.size(); ++p) {
    for (std::size_t ph = 0; ph < profiles_[p].phases.size(); ++ph)
      rows_.emplace_back(static_cast<int>(p), static_cast<int>(ph));
    rows_.emplace_back(static_cast<int>(p), -1);
  }
  compare();
  endResetModel();
}

void PhaseTableModel::setBaseline(std::vector<Profile> baseline, const QString& name) {
  resetWith([&] {
    baseline_ = std::move(baseline);
    baseline_name_ = name;
    setColumnsFor();
    compare();
  });
}

const PhaseDelta* PhaseTableModel::delta(int row) const {
  const auto [pi, ph] = rowSource(row);
  const std::optional<ProfileComparison>& c = comparisons_.at(static_cast<std::size_t>(pi));
  if (!c) return nullptr;
  const Profile& p = profiles_[static_cast<std::size_t>(pi)];
  return find_delta(*c,
                    ph < 0 ? std::string("wall") : p.phases[static_cast<std::size_t>(ph)].phase);
}

double PhaseTableModel::value(int row, int column) const {
  constexpr double none = std::numeric_limits<double>::quiet_NaN();
  const auto [pi, ph] = rowSource(row);
  const Profile& p = profiles_[static_cast<std::size_t>(pi)];
  const TimingStats& t = ph < 0 ? p.wall : p.phases[static_cast<std::size_t>(ph)].stats;
  const PhaseStats* phase = ph < 0 ? nullptr : &p.phases[static_cast<std::size_t>(ph)];
  const std::int64_t bytes = phase ? phase_bytes(p, phase->phase) : -1;
  const double gbps = phase ? phase_gbps(p, *phase) : none;
  switch (column) {
    case Reps:
      return t.count;
    case Min:
      return t.min;
    case Median:
      return t.median;
    case Max:
      return t.max;
    case Bytes:
      return bytes >= 0 ? static_cast<double>(bytes) : none;
    case Gbps:
      return gbps;
    case Roofline:
      return p.roofline_gbps > 0 && std::isfinite(gbps) ? gbps / p.roofline_gbps : none;
    case DeltaTime:
      return delta(row) ? delta(row)->delta_seconds : none;
    case DeltaPercent:
      return delta(row) ? delta(row)->percent : none;
    default:
      return none;
  }
}

QVariant PhaseTableModel::cell(int row, int col, int role) const {
  const auto [pi, ph] = rowSource(row);
  const Profile& p = profiles_[static_cast<std::size_t>(pi)];
  if (role == Qt::TextAlignmentRole && col >= Reps)
    return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
  if (role == Qt::ToolTipRole && col == Roofline) {
    QString source = QString::fromStdString(p.roofline_source);
    const PhaseInfo* info =
        ph >= 0 ? find_phase(p.phase_plan, p.phases[static_cast<std::size_t>(ph)].phase) : nullptr;
    if (info && info->x_tensors > 0 && info->name.rfind("kernel", 0) != 0)
      source += tr("; a pass whose inputs are still in cache from the pass before can exceed it");
    return source;
  }
  if (col >= DeltaTime && (role == Qt::ToolTipRole || role == Qt::ForegroundRole)) {
    const PhaseDelta* d = delta(row);
    if (role == Qt::ForegroundRole) {
      // Beyond the few percent two runs of the same code differ by: slower red, faster green,
      // mid tones that read on light and dark backgrounds.
      if (!d || !std::isfinite(d->percent) || std::fabs(d->percent) < 3) return {};
      return d->percent > 0 ? QColor(214, 69, 65) : QColor(46, 160, 67);
    }
    if (!d) return tr("The baseline (run %1) has no such backend or phase").arg(baseline_name_);
    QString tip =
        tr("Baseline (run %1): %2 median").arg(baseline_name_, duration_text(d->baseline_seconds));
    if (std::isfinite(d->gbps))
      tip += tr(", %1 GB/s; now %2 GB/s (%3%4)")
                 .arg(d->baseline_gbps, 0, 'f', 2)
                 .arg(d->gbps, 0, 'f', 2)
                 .arg(d->delta_gbps > 0 ? QStringLiteral("+") : QString())
                 .arg(d->delta_gbps, 0, 'f', 2);
    return tip;
  }
  if (role == Qt::ToolTipRole && col == Phase && ph < 0)
    return tr("The whole run on the host clock, copies and launches included");
  if (role == Qt::ToolTipRole && col == Phase) {
    const std::string& name = p.phases[static_cast<std::size_t>(ph)].phase;
    if (p.host_run && name == "kernel:" + p.backend)
      return tr("The whole %1 run; its passes follow").arg(QString::fromStdString(p.backend));
    if (const PhaseInfo* info = find_phase(p.phase_plan, name); info && !info->description.empty())
      return QString::fromStdString(info->description);
  }
  const double v = col >= Reps ? value(row, col) : 0;
  if (role == SortRole) {
    if (col == Backend) return QString::fromStdString(p.backend);
    if (col == Phase) return ph;
    return v;
  }
  if (role != Qt::DisplayRole) return {};
  switch (col) {
    case Backend:
      return QString::fromStdString(p.backend);
    case Phase:
      return ph < 0 ? tr("whole run (wall)")
                    : QString::fromStdString(p.phases[static_cast<std::size_t>(ph)].phase);
    case Reps:
      return static_cast<int>(v);
    case Min:
    case Median:
    case Max:
      return duration_text(v);
    default:
      break;
  }
  if (!std::isfinite(v)) return QString();
  switch (col) {
    case Bytes:
      return QString::fromStdString(bytes_text(v));
    case Gbps:
      return QString::number(v, 'f', 2);
    case Roofline:
      return QStringLiteral("%1 %").arg(v * 100, 0, 'f', 1);
    case DeltaTime:
      return (v > 0 ? QStringLiteral("+") : QString()) + duration_text(v);
    case DeltaPercent:
      return QStringLiteral("%1%2 %")
          .arg(v > 0 ? QStringLiteral("+") : QString())
          .arg(v, 0, 'f', 1);
    default:
      return {};
  }
}

}  // namespace bnscope
