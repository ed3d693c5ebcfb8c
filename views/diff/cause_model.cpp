#include "diff/cause_model.h"

#include <QBrush>
#include <QColor>

#include "number_text.h"

namespace bnscope {

void CauseModel::setCauses(std::vector<Cause> causes, std::vector<std::string> candidates) {
  beginResetModel();
  causes_ = std::move(causes);
  candidates_ = std::move(candidates);
  candidates_.resize(causes_.size());
  endResetModel();
}

int CauseModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(causes_.size());
}

int CauseModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant CauseModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) return {};
  const auto row = static_cast<std::size_t>(index.row());
  const Cause& c = causes_[row];
  if (role == Qt::ToolTipRole) return QString::fromStdString(c.explanation + " (" + c.code + ")");
  if (role == Qt::BackgroundRole && index.column() == Resolves && c.resolves)
    return QBrush(QColor(210, 240, 210));
  if (role == SortRole) {
    switch (index.column()) {
      case Before:
        return c.before;
      case After:
        return c.after;
      case MaxAbsBefore:
        return c.max_abs_before;
      case MaxAbsAfter:
        return c.max_abs_after;
      case Resolves:
        return c.resolves;
      default:
        break;
    }
  }
  if (role != Qt::DisplayRole && role != SortRole) return {};
  switch (index.column()) {
    case Candidate:
      return QString::fromStdString(candidates_[row]);
    case Title:
      return QString::fromStdString(c.title);
    case Before:
      return number_text(c.before);
    case After:
      return number_text(c.after);
    case MaxAbsBefore:
      return number_text(c.max_abs_before);
    case MaxAbsAfter:
      return number_text(c.max_abs_after);
    case Resolves:
      return c.resolves ? tr("yes") : tr("partly");
    default:
      return {};
  }
}

QVariant CauseModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal) return {};
  if (role == Qt::ToolTipRole && (section == Before || section == After))
    return tr("Worst |a-b| / (atol + rtol*|b|); at most 1 passes");
  if (role != Qt::DisplayRole) return {};
  switch (section) {
    case Candidate:
      return tr("backend");
    case Title:
      return tr("likely cause");
    case Before:
      return tr("error ratio before");
    case After:
      return tr("after fix");
    case MaxAbsBefore:
      return tr("max |a-b| before");
    case MaxAbsAfter:
      return tr("after fix");
    case Resolves:
      return tr("resolves");
    default:
      return {};
  }
}

}  // namespace bnscope
