#pragma once
// Findings that travel with a run: TensorFlow-compatibility notes, health warnings, conversions.

#include <cstdint>
#include <string>
#include <vector>

namespace bnscope {

enum class NoteKind {
  Info,           // a conversion or default the user may want to know about
  Warning,        // suspicious data: likely a bug in the user's pipeline
  TfWouldReject,  // well defined here, but TensorFlow's raw op refuses it; --strict makes it an
                  // error
};

struct Note {
  NoteKind kind = NoteKind::Info;
  std::string code;           // stable identifier, e.g. "reserve-convention", "tf-reject-format"
  std::string message;        // one line for the user
  std::string subject;        // the input or output it is about, if any
  std::int64_t channel = -1;  // the channel it is about, if any
};

std::string_view note_kind_name(NoteKind k);
// "TensorFlow would reject this: <message>" for TfWouldReject notes, the message otherwise.
std::string note_text(const Note& n);

}  // namespace bnscope
