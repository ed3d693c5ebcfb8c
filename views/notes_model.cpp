#include "notes_model.h"

#include <QApplication>
#include <QBrush>
#include <QColor>
#include <QStyle>

#include "option_words.h"

namespace bnscope {

NotesModel::NotesModel(QObject* parent) : TableModel(parent) {
  setColumns({{tr("note")}});
}

void NotesModel::setNotes(std::vector<Note> notes, const QString& error) {
  std::vector<ValidationProblem> errors;
  if (!error.isEmpty()) errors.push_back({std::string(), error.toStdString()});
  setNotes(std::move(notes), std::move(errors));
}

void NotesModel::setNotes(std::vector<Note> notes, std::vector<ValidationProblem> errors) {
  beginResetModel();
  notes_ = std::move(notes);
  errors_ = std::move(errors);
  endResetModel();
}

QVariant NotesModel::cell(int row, int, int role) const {
  if (static_cast<std::size_t>(row) < errors_.size()) {
    const ValidationProblem& e = errors_[static_cast<std::size_t>(row)];
    switch (role) {
      case Qt::DisplayRole:
        return tr("Error: %1").arg(app_error_text(e));
      case Qt::ForegroundRole:
        return QBrush(QColor(220, 50, 47));
      case KindRole:
        return -1;
      case ChannelRole:
        return -1;
      case SubjectRole:
        return QString::fromStdString(e.subject);
      default:
        return {};
    }
  }
  const Note& n = notes_[static_cast<std::size_t>(row) - errors_.size()];
  switch (role) {
    case Qt::DisplayRole: {
      QString text = QString::fromStdString(note_text(n));
      if (n.channel >= 0) text += tr(" [channel %1]").arg(n.channel);
      return text;
    }
    case Qt::ToolTipRole:
      return QString::fromStdString(std::string(note_kind_name(n.kind)) + ": " + n.code);
    case Qt::DecorationRole: {
      if (!qApp) return {};
      const auto icon = n.kind == NoteKind::Info ? QStyle::SP_MessageBoxInformation
                                                 : QStyle::SP_MessageBoxWarning;
      return QApplication::style()->standardIcon(icon);
    }
    case SubjectRole:
      return QString::fromStdString(n.subject);
    case ChannelRole:
      return static_cast<qlonglong>(n.channel);
    case KindRole:
      return static_cast<int>(n.kind);
    default:
      return {};
  }
}

}  // namespace bnscope
