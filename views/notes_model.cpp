#include "notes_model.h"

#include <QApplication>
#include <QBrush>
#include <QColor>
#include <QStyle>

#include "app_wording.h"

namespace bnscope {

NotesModel::NotesModel(QObject* parent) : TableModel(parent) {
  setColumns({{tr("note")}});
}

void NotesModel::setNotes(std::vector<Note> notes, const QString& error) {
  beginResetModel();
  notes_ = std::move(notes);
  error_ = error;
  endResetModel();
}

QVariant NotesModel::cell(int row, int, int role) const {
  const bool is_error = !error_.isEmpty() && row == 0;
  if (is_error) {
    switch (role) {
      case Qt::DisplayRole:
        return tr("Error: %1").arg(in_app_terms(error_));
      case Qt::ForegroundRole:
        return QBrush(QColor(220, 50, 47));
      case KindRole:
        return -1;
      case ChannelRole:
        return -1;
      case SubjectRole:
        return QString();
      default:
        return {};
    }
  }
  const Note& n = notes_[static_cast<std::size_t>(row - (error_.isEmpty() ? 0 : 1))];
  switch (role) {
    case Qt::DisplayRole: {
      QString text = in_app_terms(note_text(n));
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
