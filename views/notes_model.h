#pragma once
// The notes of the latest run (validation, health, TensorFlow compatibility), one row each.

#include <vector>

#include "ops/note.h"
#include "ops/prepared.h"
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
  // Every problem that stopped the run (outcome_problems) first, one row each, with its subject.
  void setNotes(std::vector<Note> notes, std::vector<ValidationProblem> errors);

 private:
  int rows() const override { return static_cast<int>(errors_.size() + notes_.size()); }
  QVariant cell(int row, int column, int role) const override;

  std::vector<Note> notes_;
  std::vector<ValidationProblem> errors_;
};

}  // namespace bnscope
