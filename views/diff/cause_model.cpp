#include "diff/cause_model.h"

#include <QBrush>
#include <QColor>

#include "number_text.h"

namespace bnscope {

CauseModel::CauseModel(QObject* parent) : TableModel(parent) {
  const QString ratio = tr("Worst |a-b| / (atol + rtol*|b|); at most 1 passes");
  setColumns({{tr("backend")},
              {tr("likely cause")},
              {tr("fitted"), tr("The value the search fitted (epsilon, k, factor)")},
              {tr("confidence")},
              {tr("error ratio before"), ratio},
              {tr("after fix"), ratio},
              {tr("max |a-b| before")},
              {tr("after fix")},
              {tr("resolves")},
              {tr("fix"), tr("The change Apply fix makes; for a pattern, what to check next")}});
}

void CauseModel::setCauses(std::vector<Cause> causes) {
  resetWith([&] { causes_ = std::move(causes); });
}

QVariant CauseModel::cell(int r, int column, int role) const {
  const auto row = static_cast<std::size_t>(r);
  const Cause& c = causes_[row];
  if (role == Qt::ToolTipRole)
    return QString::fromStdString(c.explanation) +
           QStringLiteral(" (%1)").arg(QString::fromStdString(c.code));
  if (role == SortRole && column == Fitted) return c.fitted;
  if (role == Qt::BackgroundRole && column == Resolves && c.resolves)
    return QBrush(QColor(210, 240, 210));
  if (role == SortRole) {
    switch (column) {
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
  switch (column) {
    case Candidate:
      return QString::fromStdString(c.candidate);
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
    case Fitted:
      return c.fitted_name.empty()
                 ? QString()
                 : QStringLiteral("%1 = %2").arg(QString::fromStdString(c.fitted_name),
                                                 number_text(c.fitted));
    case Confidence:
      return QString::fromUtf8(confidence_name(c.confidence).data(),
                               static_cast<qsizetype>(confidence_name(c.confidence).size()));
    case Resolves:
      if (c.pattern_only) return tr("no cause fits");
      if (c.benign) return tr("yes (summation order)");
      if (c.in_kernel) return c.resolves ? tr("in its kernel") : tr("partly, in its kernel");
      return c.resolves ? tr("yes") : tr("partly");
    case Fix:
      if (c.pattern_only) return tr("next: %1").arg(QString::fromStdString(c.suggestion));
      return QString::fromStdString(c.fix.empty() && !c.in_kernel ? std::string() : c.suggestion);
    default:
      return {};
  }
}

}  // namespace bnscope
