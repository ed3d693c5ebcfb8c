#include "diff/worst_elements_model.h"

#include <QStringList>
#include <limits>

#include "number_text.h"

namespace bnscope {

QString coords_text(const std::vector<std::int64_t>& coords) {
  QStringList parts;
  for (std::int64_t c : coords) parts << QString::number(c);
  return QStringLiteral("(%1)").arg(parts.join(QStringLiteral(", ")));
}

WorstElementsModel::WorstElementsModel(QObject* parent) : TableModel(parent) {
  setColumns({{tr("element")},
              {tr("channel")},
              {tr("reference")},
              {tr("candidate")},
              {tr("|a-b|")},
              {tr("rel")},
              {tr("ULP")},
              {tr("outside tol")}});
}

void WorstElementsModel::setElements(std::vector<ElementError> elements, int max_ulp_row) {
  beginResetModel();
  elements_ = std::move(elements);
  max_ulp_row_ = max_ulp_row;
  endResetModel();
}

QVariant WorstElementsModel::cell(int row, int column, int role) const {
  const ElementError& e = elements_[static_cast<std::size_t>(row)];
  const bool nan_ulp = e.ulp == std::numeric_limits<std::uint64_t>::max();
  if (role == SortRole) {
    switch (column) {
      case Coords:
        return static_cast<qlonglong>(e.index);
      case Channel:
        return static_cast<qlonglong>(e.channel);
      case Reference:
        return e.reference;
      case Candidate:
        return e.candidate;
      case AbsError:
        return e.abs_error;
      case RelError:
        return e.rel_error;
      case Ulp:
        return static_cast<double>(e.ulp);
      case Outside:
        return e.mismatch;
      default:
        return {};
    }
  }
  if (role == Qt::ToolTipRole && row == max_ulp_row_)
    return tr(
        "The element of the output's largest ULP distance (max ULP), which |a-b| does not "
        "rank among the worst");
  if (role == Qt::TextAlignmentRole && column != Coords)
    return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
  if (role != Qt::DisplayRole) return {};
  switch (column) {
    case Coords:
      return row == max_ulp_row_ ? coords_text(e.coords) + tr(" (max ULP)") : coords_text(e.coords);
    case Channel:
      return e.channel < 0 ? QString() : QString::number(e.channel);
    case Reference:
      return number_text(e.reference);
    case Candidate:
      return number_text(e.candidate);
    case AbsError:
      return number_text(e.abs_error);
    case RelError:
      return number_text(e.rel_error);
    case Ulp:
      return nan_ulp ? QStringLiteral("NaN") : QString::number(static_cast<qulonglong>(e.ulp));
    case Outside:
      return e.mismatch ? tr("yes") : tr("no");
    default:
      return {};
  }
}

}  // namespace bnscope
