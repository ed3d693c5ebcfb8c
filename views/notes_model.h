#pragma once
// The notes of the latest run (validation, health, TensorFlow compatibility), one row each.

#include <vector>

#include "ops/note.h"
#include "table_model.h"

namespace bnscope {

class NotesModel : public TableModel {
  Q_OBJECT
 public:
  static constexpr int SubjectRole = FirstCustomRole;      // input/output name, may be empty
  static constexpr int ChannelRole = FirstCustomRole + 1;  // -1 when none
  static constexpr int KindRole = FirstCustomRole + 2;     // NoteKind as int

  explicit NotesModel(QObject* parent = nullptr);
  // An error (failed validation or run) is shown as the first row.
  void setNotes(std::vector<Note> notes, const QString& error = {});

 private:
  int rows() const override { return static_cast<int>(notes_.size()) + (error_.isEmpty() ? 0 : 1); }
  QVariant cell(int row, int column, int role) const override;

  std::vector<Note> notes_;
  QString error_;
};

}  // namespace bnscope
