#pragma once
// The notes of the latest run (validation, health, TensorFlow compatibility), one row each.

#include <QAbstractListModel>
#include <vector>

#include "ops/note.h"

namespace bnscope {

class NotesModel : public QAbstractListModel {
  Q_OBJECT
 public:
  static constexpr int SubjectRole = Qt::UserRole + 1;  // input/output name, may be empty
  static constexpr int ChannelRole = Qt::UserRole + 2;  // -1 when none
  static constexpr int KindRole = Qt::UserRole + 3;     // NoteKind as int

  using QAbstractListModel::QAbstractListModel;
  // An error (failed validation or run) is shown as the first row.
  void setNotes(std::vector<Note> notes, const QString& error = {});
  int rowCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

 private:
  std::vector<Note> notes_;
  QString error_;
};

}  // namespace bnscope
