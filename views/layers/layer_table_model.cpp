#include "layers/layer_table_model.h"

#include <QBrush>
#include <QColor>
#include <algorithm>
#include <limits>
#include <numeric>

#include "number_text.h"
#include "qt_text.h"

namespace bnscope {

namespace {

constexpr double kBrokenKey = std::numeric_limits<double>::infinity();

QString ratio_text(double r) {
  if (std::isinf(r)) return QStringLiteral("inf");
  return QString::number(r, 'g', 3);
}

QString outputs_tooltip(const Comparison& c) {
  QStringList lines;
  lines << QObject::tr("%1 against %2").arg(qs(c.candidate), qs(c.reference));
  for (const OutputDiff& o : c.outputs) {
    if (!o.compared || o.count == 0) continue;
    lines << QObject::tr("%1: max|a-b| %2, %3 ULP, %4")
                 .arg(qs(o.name), number_text(o.max_abs), QString::number(o.max_ulp),
                      o.passed ? QObject::tr("within tolerance") : QObject::tr("out of tolerance"));
  }
  return lines.join(QLatin1Char('\n'));
}

}  // namespace

LayerTableModel::LayerTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void LayerTableModel::setResult(std::shared_ptr<const SweepResult> result) {
  beginResetModel();
  result_ = std::move(result);
  backends_.clear();
  order_.clear();
  if (result_) {
    for (const std::string& b : result_->backends)
      if (b != result_->reference) backends_ << qs(b);
    order_ = result_->worst_first();
  }
  endResetModel();
}

const SweepRow* LayerTableModel::rowAt(int row) const {
  if (!result_ || row < 0 || row >= static_cast<int>(order_.size())) return nullptr;
  return &result_->rows[order_[static_cast<std::size_t>(row)]];
}

int LayerTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(order_.size());
}

int LayerTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : causeColumn() + 1;
}

const Comparison* LayerTableModel::comparison(const SweepRow& row, int column) const {
  const int b = column - FirstBackend;
  if (b < 0 || b >= backends_.size()) return nullptr;
  const std::string name = backends_[b].toStdString();
  for (const Comparison& c : row.result.diff.comparisons)
    if (c.candidate == name) return &c;
  return nullptr;
}

QVariant LayerTableModel::sortKey(const SweepRow& row, int column) const {
  switch (column) {
    case Index:
      return row.layer.index;
    case Name:
      return qs(row.layer.name);
    case Op:
      return qs(row.layer.op);
    case Shape:
      return qs(row.shape);
    case Dtype:
      return qs(row.dtype);
    default:
      break;
  }
  if (column == causeColumn()) return qs(row.likely_cause());
  if (row.broken()) return kBrokenKey;
  if (column == worstColumn()) return row.worst_ratio;
  const Comparison* c = comparison(row, column);
  return c ? c->worst_tolerance_ratio() : -1.0;
}

QVariant LayerTableModel::data(const QModelIndex& index, int role) const {
  const SweepRow* row = index.isValid() ? rowAt(index.row()) : nullptr;
  if (!row) return {};
  const int col = index.column();
  const bool backend_col = col >= FirstBackend && col < worstColumn();
  const Comparison* c = backend_col ? comparison(*row, col) : nullptr;
  switch (role) {
    case PathRole:
      return qs(row->layer.path);
    case SweepRowRole:
      return static_cast<int>(order_[static_cast<std::size_t>(index.row())]);
    case SortRole:
      return sortKey(*row, col);
    case VerdictRole:
      if (row->broken()) return QStringLiteral("broken");
      if (col == worstColumn())
        return row->passed() ? QStringLiteral("agree") : QStringLiteral("disagree");
      if (!c) return QString();
      return c->passed ? QStringLiteral("agree") : QStringLiteral("disagree");
    case Qt::TextAlignmentRole:
      if (col == Index || col == worstColumn()) return int(Qt::AlignRight | Qt::AlignVCenter);
      return {};
    case Qt::BackgroundRole:
      if (row->broken() && (backend_col || col == worstColumn()))
        return QBrush(QColor(255, 205, 205));
      if (c) return QBrush(c->passed ? QColor(210, 240, 210) : QColor(255, 205, 205));
      return {};
    case Qt::ForegroundRole:
      // The verdict cells keep their light backgrounds under a dark theme too.
      if (c || (row->broken() && (backend_col || col == worstColumn())))
        return QBrush(QColor(0, 0, 0));
      if (col == causeColumn() && row->broken()) return QBrush(QColor(220, 50, 47));
      return {};
    case Qt::ToolTipRole:
      if (c) return outputs_tooltip(*c);
      if (col == causeColumn() || row->broken()) return qs(row->likely_cause());
      if (col == Name) return qs(row->layer.file);
      return {};
    case Qt::DisplayRole:
      break;
    default:
      return {};
  }
  switch (col) {
    case Index:
      return row->layer.index;
    case Name:
      return qs(row->layer.name);
    case Op:
      return qs(row->layer.op);
    case Shape:
      return qs(row->shape);
    case Dtype:
      return qs(row->dtype);
    default:
      break;
  }
  if (col == causeColumn()) return qs(row->likely_cause());
  if (row->broken()) return backend_col ? tr("broken") : tr("BROKEN");
  if (col == worstColumn()) return ratio_text(row->worst_ratio);
  if (!c) return tr("not run");
  return tr("%1 (%2)").arg(c->passed ? tr("agree") : tr("DISAGREE"),
                           ratio_text(c->worst_tolerance_ratio()));
}

QVariant LayerTableModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal) return {};
  const bool backend_col = section >= FirstBackend && section < worstColumn();
  const QString against = result_ && result_->reference == kAgainstTensorFlow
                              ? tr("TensorFlow's recorded outputs")
                          : result_ ? qs(result_->reference)
                                    : QString();
  if (role == Qt::ToolTipRole) {
    if (backend_col)
      return tr("%1 against %2: the verdict and the worst |a-b| as a multiple of the tolerance "
                "(above 1 fails)")
          .arg(backends_[section - FirstBackend], against);
    if (section == worstColumn())
      return tr("Worst |a-b| over every backend as a multiple of the tolerance (above 1 fails)");
    return {};
  }
  if (role != Qt::DisplayRole) return {};
  switch (section) {
    case Index:
      return tr("#");
    case Name:
      return tr("Layer");
    case Op:
      return tr("Op");
    case Shape:
      return tr("Shape");
    case Dtype:
      return tr("Dtype");
    default:
      break;
  }
  if (backend_col) return backends_[section - FirstBackend];
  if (section == worstColumn()) return tr("Worst / tol");
  if (section == causeColumn()) return tr("Likely cause");
  return {};
}

void LayerTableModel::sort(int column, Qt::SortOrder order) {
  if (!result_ || column < 0 || column >= columnCount()) return;
  emit layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
  const QModelIndexList before = persistentIndexList();
  std::vector<std::size_t> old_rows;
  for (const QModelIndex& i : before) old_rows.push_back(order_[static_cast<std::size_t>(i.row())]);

  order_.resize(result_->rows.size());
  std::iota(order_.begin(), order_.end(), 0);
  const bool descending = order == Qt::DescendingOrder;
  // Ties stay in model order whichever way the column is sorted.
  std::stable_sort(order_.begin(), order_.end(), [&](std::size_t a, std::size_t b) {
    const QVariant ka = sortKey(result_->rows[a], column);
    const QVariant kb = sortKey(result_->rows[b], column);
    if (ka.typeId() == QMetaType::QString) {
      const int cmp = QString::compare(ka.toString(), kb.toString(), Qt::CaseInsensitive);
      return descending ? cmp > 0 : cmp < 0;
    }
    const double da = ka.toDouble(), db = kb.toDouble();
    return descending ? da > db : da < db;
  });

  std::vector<int> where(order_.size());
  for (std::size_t r = 0; r < order_.size(); ++r) where[order_[r]] = static_cast<int>(r);
  QModelIndexList after;
  for (std::size_t i = 0; i < old_rows.size(); ++i)
    after << index(where[old_rows[i]], before[static_cast<int>(i)].column());
  changePersistentIndexList(before, after);
  emit layoutChanged({}, QAbstractItemModel::VerticalSortHint);
}

}  // namespace bnscope
