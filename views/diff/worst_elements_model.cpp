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

void WorstElementsModel::setElements(std::vector<ElementError> elements) {
  beginResetModel();
  elements_ = std::move(elements);
  endResetModel();
}

int WorstElementsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(elements_.size());
}

int WorstElementsModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant WorstElementsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) return {};
  const ElementError& e = elements_[static_cast<std::size_t>(index.row())];
  const bool nan_ulp = e.ulp == std::numeric_limits<std::uint64_t>::max();
  if (role == SortRole) {
    switch (index.column()) {
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
  if (role == Qt::TextAlignmentRole && index.column() != Coords)
    return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case Coords:
      return coords_text(e.coords);
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

QVariant WorstElementsModel::headerData(int section, Qt::Orientation o, int role) const {
  if (role != Qt::DisplayRole || o != Qt::Horizontal) return {};
  switch (section) {
    case Coords:
      return tr("element");
    case Channel:
      return tr("channel");
    case Reference:
      return tr("reference");
    case Candidate:
      return tr("candidate");
    case AbsError:
      return tr("|a-b|");
    case RelError:
      return tr("rel");
    case Ulp:
      return tr("ULP");
    case Outside:
      return tr("outside tol");
    default:
      return {};
  }
}

}  // namespace bnscope
