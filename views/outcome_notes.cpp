#include "outcome_notes.h"

#include <QFileInfo>
#include <QString>

#include "problem_controller.h"

namespace bnscope {

namespace {

// The comparison of this very problem passed, against the reference it names.
bool passed_as_declared(const RunOutcome& out, std::string* reference) {
  if (!out.diff || !out.diff->ok() || out.diff->revision != out.revision) return false;
  const DiffReport& report = out.diff->report();
  if (report.comparisons.empty() || !report.passed()) return false;
  const std::string& ref = report.comparisons.front().reference;
  *reference = QFileInfo(QString::fromStdString(ref)).fileName().toStdString();
  if (reference->empty()) *reference = ref;
  return true;
}

}  // namespace

std::vector<Note> outcome_notes(const RunOutcome& out) {
  std::vector<Note> notes;
  if (out.pipeline)
    notes = out.pipeline->notes;
  else if (out.prepared)
    notes = out.prepared->notes;
  std::string reference;
  if (!passed_as_declared(out, &reference)) return notes;
  const bool inv = out.problem.convention == ReserveConvention::InvStd;
  for (Note& n : notes)
    if (n.code == "reserve-convention" && n.kind == NoteKind::Warning) {
      n.kind = NoteKind::Info;
      n.message = std::string("reserve_space_2 looks like ") +
                  (inv ? "the batch variance" : "1/sqrt(variance+epsilon)") +
                  ", not what its convention (" +
                  std::string(convention_name(out.problem.convention)) +
                  ") declares, but the outputs agree with " + reference + " as declared";
    }
  return notes;
}

}  // namespace bnscope
