#include "input_table_model.h"

#include <QBrush>
#include <QColor>
#include <QRegularExpression>
#include <QStringList>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>

#include "number_text.h"
#include "tensor/layout.h"

namespace bnscope {

namespace {

// The input an engine message is about: the name it mentions first, as a whole word.
QString subject_of(const QString& message, const std::vector<QString>& names) {
  QString best;
  qsizetype at = std::numeric_limits<qsizetype>::max();
  for (const QString& n : names) {
    const QRegularExpression word(QStringLiteral("(^|[^A-Za-z0-9_'])'?%1'?($|[^A-Za-z0-9_])")
                                      .arg(QRegularExpression::escape(n)));
    const auto m = word.match(message);
    if (m.hasMatch() && m.capturedStart() < at) {
      at = m.capturedStart();
      best = n;
    }
  }
  return best;
}

}  // namespace

InputTableModel::InputTableModel(QObject* parent) : TableModel(parent) {
  setColumns({{tr("input")},
              {tr("shape")},
              {tr("dtype")},
              {tr("min")},
              {tr("max")},
              {tr("mean")},
              {tr("non-finite")},
              {tr("matches the op?")}});
}

void InputTableModel::setProblem(const Problem& p, const std::vector<ValidationProblem>& problems,
                                 const std::vector<Note>& notes,
                                 const std::vector<InputSummary>* known) {
  beginResetModel();
  rows_.clear();
  const OpSpec* op = find_op(p.op);
  std::vector<QString> names;
  if (op)
    for (const ArgSpec& a : op->inputs)
      names.push_back(QString::fromUtf8(a.name.data(), a.name.size()));
  for (const auto& [name, t] : p.inputs)
    if (!op || op->input_index(name) < 0) names.push_back(QString::fromStdString(name));
  // Each problem in the row it names: its subject, or the first input its message mentions.
  std::map<QString, QStringList> blamed;
  for (const ValidationProblem& q : problems) {
    const QString message = QString::fromStdString(q.message);
    const QString subject = QString::fromStdString(q.subject);
    const bool input = std::find(names.begin(), names.end(), subject) != names.end();
    blamed[input ? subject : subject_of(message, names)] << app_error_text(q);
  }
  for (const QString& n : names) {
    Row r;
    r.name = n;
    if (op && op->input_index(n.toStdString()) >= 0)
      r.doc = QString::fromUtf8(op->inputs[op->input_index(n.toStdString())].doc.data());
    auto it = p.inputs.find(n.toStdString());
    r.present = it != p.inputs.end();
    if (r.present) {
      const Tensor& t = it->second;
      r.shape = QString::fromStdString(shape_str(t.shape()));
      r.dtype = QString::fromUtf8(dtype_name(t.dtype()).data());
      // The figures of this very buffer, read in the background; never a walk of a big tensor
      // here on the UI thread.
      std::optional<TensorSummary> sum;
      if (known)
        for (const InputSummary& k : *known)
          if (k.tensor.shares_storage_with(t) && k.tensor.dtype() == t.dtype() &&
              k.tensor.numel() == t.numel())
            sum = k.summary;
      if (!sum && t.numel() <= kInlineSummaryLimit) sum = summarize(t, ScanControl{nullptr, 1});
      if (!sum && t.numel() == 0) sum = summarize(t);
      r.pending = !sum;
      if (sum) {
        r.non_finite = sum->non_finite;
        r.min = sum->min;
        r.max = sum->max;
        r.mean = sum->mean;
      }
    }
    QStringList warnings;
    bool rejected = false;
    for (const Note& note : notes)
      if (note.kind != NoteKind::Info &&
          (note.subject.empty() ? subject_of(QString::fromStdString(note.message), names)
                                : QString::fromStdString(note.subject)) == n) {
        warnings << QString::fromStdString(note_text(note));
        rejected |= note.kind == NoteKind::TfWouldReject;
      }
    if (auto b = blamed.find(n); b != blamed.end()) {
      r.bad = true;
      r.status = b->second.join(QStringLiteral("; "));
    } else if (!op || op->input_index(n.toStdString()) < 0) {
      r.bad = true;
      r.status = tr("not an input of %1").arg(QString::fromStdString(p.op));
    } else if (!r.present) {
      r.status = tr("missing (the op's default is used if it has one)");
    } else if (!warnings.isEmpty()) {
      r.warned = true;
      r.status = (rejected ? tr("accepted here, but: %1") : tr("runs, but: %1"))
                     .arg(warnings.join(QStringLiteral("; ")));
    } else if (r.pending) {
      r.status = tr("ok");
    } else if (r.non_finite > 0) {
      r.status = tr("ok, holds %1 non-finite values").arg(r.non_finite);
    } else {
      r.status = tr("ok");
    }
    rows_.push_back(std::move(r));
  }
  endResetModel();
}

QVariant InputTableModel::cell(int row, int column, int role) const {
  const Row& r = rows_[static_cast<std::size_t>(row)];
  if (role == ProblemRole) return r.bad;
  if (role == Qt::ForegroundRole && r.bad && column == Status) return QBrush(QColor(220, 50, 47));
  if (role == Qt::ForegroundRole && r.warned && column == Status)
    return QBrush(QColor(203, 75, 22));
  if (role == Qt::ToolTipRole) return column == Status ? r.status : r.doc;
  if (role != Qt::DisplayRole) return {};
  const bool stats = r.present && !r.pending;
  if (r.present && r.pending && column >= Min && column <= NonFinite)
    return QStringLiteral("\u2026");  // being read with the run
  switch (column) {
    case Name:
      return r.name;
    case Shape:
      return r.present ? r.shape : tr("(missing)");
    case Dtype:
      return r.dtype;
    case Min:
      return stats ? number_text(r.min) : QString();
    case Max:
      return stats ? number_text(r.max) : QString();
    case Mean:
      return stats ? number_text(r.mean) : QString();
    case NonFinite:
      return stats ? QString::number(r.non_finite) : QString();
    case Status:
      return r.status;
    default:
      return {};
  }
}

int InputTableModel::rowNamedIn(const QString& message) const {
  std::vector<QString> names;
  for (const Row& r : rows_) names.push_back(r.name);
  return rowOf(subject_of(message, names));
}

QString InputTableModel::inputName(int row) const {
  return row >= 0 && row < rowCount() ? rows_[static_cast<std::size_t>(row)].name : QString();
}

int InputTableModel::rowOf(const QString& name) const {
  for (int i = 0; i < rowCount(); ++i)
    if (rows_[static_cast<std::size_t>(i)].name == name) return i;
  return -1;
}

}  // namespace bnscope
