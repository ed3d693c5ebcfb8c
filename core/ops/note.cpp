#include "ops/note.h"

namespace bnscope {

std::string_view note_kind_name(NoteKind k) {
  switch (k) {
    case NoteKind::Info:
      return "info";
    case NoteKind::Warning:
      return "warning";
    case NoteKind::TfWouldReject:
      break;
  }
  return "tf-would-reject";
}

std::string note_text(const Note& n) {
  if (n.kind == NoteKind::TfWouldReject) return "TensorFlow would reject this: " + n.message;
  return n.message;
}

}  // namespace bnscope
