#include "conformance/conformance_table_model.h"

#include <QBrush>
#include <QColor>
#include <cmath>

namespace bnscope {

namespace {

QString number(double v) {
  return std::isinf(v) ? QStringLiteral("NaN/Inf") : QString::number(v, 'g', 3);
}

bool measured(const ConformanceRow& r) {
  return r.verdict == ConformanceVerdict::Pass || r.verdict == ConformanceVerdict::Fail;
}

}  // namespace

ConformanceTableModel::ConformanceTableModel(QObject* parent) : TableModel(parent) {
  setColumns(
      {{tr("Verdict"), {}},
       {tr("Case"), tr("variant (op, layout, mode, reserve convention, dtype) and shape")},
       {tr("max |a-b|"), tr("worst absolute error over the compared outputs")},
       {tr("max ULP"), tr("worst distance in units in the last place of the output's dtype")},
       {tr("Worst"), tr("largest error over its tolerance; above 1 fails")},
       {tr("Likely cause"), tr("the known trap whose re-run removes the difference")}});
}

void ConformanceTableModel::setResult(std::shared_ptr<const ConformanceResult> result) {
  resetWith([&] {
    result_ = std::move(result);
    order_ = result_ ? result_->failing_first() : std::vector<std::size_t>{};
  });
}

const ConformanceRow* ConformanceTableModel::rowAt(int row) const {
  if (!result_ || row < 0 || row >= static_cast<int>(order_.size())) return nullptr;
  return &result_->rows[order_[static_cast<std::size_t>(row)]];
}

int ConformanceTableModel::rows() const {
  return static_cast<int>(order_.size());
}

QVariant ConformanceTableModel::cell(int row, int column, int role) const {
  const ConformanceRow& r = *rowAt(row);
  const bool failing =
      r.verdict == ConformanceVerdict::Fail || r.verdict == ConformanceVerdict::Error;
  if (role == Qt::ForegroundRole && column == Verdict && failing)
    return QBrush(QColor(0xc6, 0x28, 0x28));
  if (role == Qt::ToolTipRole) {
    if (!r.detail.empty()) return QString::fromStdString(r.detail);
    if (column == Cause && !r.cause_code.empty()) return QString::fromStdString(r.cause_code);
    if (column == Case) return QString::fromStdString(r.c.label());  // elided in the table
    return {};
  }
  if (role == SortRole) {
    switch (column) {
      case MaxAbs:
        return r.max_abs;
      case MaxUlp:
        return static_cast<qulonglong>(r.max_ulp);
      case Worst:
        return r.worst_ratio;
      default:
        break;
    }
  }
  if (role != Qt::DisplayRole && role != SortRole) return {};
  switch (column) {
    case Verdict:
      return QString::fromStdString(std::string(verdict_name(r.verdict)));
    case Case:
      return QString::fromStdString(
          r.verdict == ConformanceVerdict::Unsupported ? r.c.variant.label() : r.c.label());
    case MaxAbs:
      return measured(r) ? number(r.max_abs) : QStringLiteral("-");
    case MaxUlp:
      if (!measured(r)) return QStringLiteral("-");
      // The all-ones distance marks a NaN on one side only, as max |a-b| says.
      return r.max_ulp == ~std::uint64_t{0} ? QStringLiteral("NaN/Inf")
                                            : QString::number(static_cast<qulonglong>(r.max_ulp));
    case Worst:
      return measured(r) ? number(r.worst_ratio) : QStringLiteral("-");
    case Cause:
      return QString::fromStdString(r.verdict == ConformanceVerdict::Error ? r.detail
                                                                           : r.cause_title);
    default:
      return {};
  }
}

}  // namespace bnscope
