#include "diff/verdict_model.h"

#include <QBrush>
#include <QColor>
#include <QFileInfo>
#include <cmath>
#include <limits>

#include "number_text.h"

namespace bnscope {

VerdictModel::VerdictModel(QObject* parent) : TableModel(parent) {
  const QString edit = tr("Double-click to edit; applies to this output in every comparison");
  setColumns({{tr("comparison")},
              {tr("output")},
              {tr("atol"), edit},
              {tr("rtol"), edit},
              {tr("max |a-b|")},
              {tr("max rel")},
              {tr("max ULP")},
              {tr("mismatches")},
              {QString::fromUtf8(kRequiredAtolWords), QString::fromUtf8(kRequiredAtolMeaning)},
              {tr("verdict")}});
}

void VerdictModel::setReport(DiffReport report) {
  beginResetModel();
  report_ = std::move(report);
  rows_.clear();
  for (std::size_t c = 0; c < report_.comparisons.size(); ++c)
    for (std::size_t o = 0; o < report_.comparisons[c].outputs.size(); ++o)
      rows_.emplace_back(static_cast<int>(c), static_cast<int>(o));
  endResetModel();
}

const Comparison& VerdictModel::comparison(int row) const {
  return report_.comparisons.at(
      static_cast<std::size_t>(rows_.at(static_cast<std::size_t>(row)).first));
}

const OutputDiff& VerdictModel::output(int row) const {
  return comparison(row).outputs.at(
      static_cast<std::size_t>(rows_.at(static_cast<std::size_t>(row)).second));
}

QVariant VerdictModel::cell(int row, int col, int role) const {
  const Comparison& c = comparison(row);
  const OutputDiff& o = output(row);
  const bool skipped = !o.compared;
  if (role == Qt::BackgroundRole && col == Verdict && !skipped)
    return QBrush(o.passed ? QColor(210, 240, 210) : QColor(255, 205, 205));
  // Dark text on the light verdict colours, under a dark theme too.
  if (role == Qt::ForegroundRole && col == Verdict && !skipped) return QBrush(QColor(0, 0, 0));
  if (role == Qt::ToolTipRole) return QString::fromStdString(o.note);
  if (role == Qt::TextAlignmentRole && col >= Atol)
    return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
  if (role == SortRole || role == Qt::EditRole) {
    switch (col) {
      case Atol:
        return o.tolerance.atol;
      case Rtol:
        return o.tolerance.rtol;
      case MaxAbs:
        return o.max_abs;
      case MaxRel:
        return o.max_rel;
      case MaxUlp:
        return static_cast<double>(o.max_ulp);
      case Mismatches:
        return static_cast<qlonglong>(o.mismatches);
      case RequiredAtol:
        return o.required_atol;
      case Verdict:
        return skipped ? 0 : o.passed ? 1 : -1;
      default:
        break;
    }
  }
  if (role != Qt::DisplayRole && role != SortRole && role != Qt::EditRole) return {};
  switch (col) {
    case Candidate:
      // A file reference is shown by its name; the full path is in the verdict line.
      return QStringLiteral("%1 vs %2")
          .arg(QString::fromStdString(c.candidate),
               QFileInfo(QString::fromStdString(c.reference)).fileName());
    case Output:
      return QString::fromStdString(o.name);
    case Verdict:
      return skipped ? tr("skipped") : o.passed ? tr("pass") : tr("FAIL");
    default:
      break;
  }
  if (skipped) return {};
  switch (col) {
    case Atol:
      return number_text(o.tolerance.atol);
    case Rtol:
      return number_text(o.tolerance.rtol);
    case MaxAbs:
      return number_text(o.max_abs);
    case MaxRel:
      return number_text(o.max_rel);
    case MaxUlp:
      return o.max_ulp == std::numeric_limits<std::uint64_t>::max()
                 ? QStringLiteral("NaN")
                 : QString::number(static_cast<qulonglong>(o.max_ulp));
    case Mismatches:
      return QStringLiteral("%1 / %2").arg(o.mismatches).arg(o.count);
    case RequiredAtol:
      return number_text(o.required_atol);
    default:
      return {};
  }
}

Qt::ItemFlags VerdictModel::flags(const QModelIndex& index) const {
  Qt::ItemFlags f = TableModel::flags(index);
  if (index.isValid() && (index.column() == Atol || index.column() == Rtol) &&
      output(index.row()).compared)
    f |= Qt::ItemIsEditable;
  return f;
}

bool VerdictModel::setData(const QModelIndex& index, const QVariant& value, int role) {
  if (role != Qt::EditRole || !(flags(index) & Qt::ItemIsEditable)) return false;
  bool ok = false;
  const double v = value.toString().trimmed().toDouble(&ok);
  if (!ok || !(v >= 0) || !std::isfinite(v)) return false;  // tolerances are finite, >= 0
  const OutputDiff& o = output(index.row());
  const double atol = index.column() == Atol ? v : o.tolerance.atol;
  const double rtol = index.column() == Rtol ? v : o.tolerance.rtol;
  emit toleranceEdited(QString::fromStdString(o.name), atol, rtol);
  return true;
}

}  // namespace bnscope
