#pragma once
// The Diff tab's verdict line, as rich text: PASS, or FAIL with each failing output and why, the
// likely cause, and the notes a bare verdict would hide (NaN on both sides, outputs not
// compared); or why nothing could be compared. In colours readable on the window's theme.

#include <QString>

namespace bnscope {

struct DiffOutcome;

// out has a result and no error.
QString verdict_text(const DiffOutcome& out, bool dark_window);
QString cannot_compare_text(const DiffOutcome& out, bool dark_window);

}  // namespace bnscope
