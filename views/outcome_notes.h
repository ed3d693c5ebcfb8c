#pragma once
// The notes the Warnings panel lists for a run: the pipeline's (the prepared problem's and what
// the runs added), read in the light of the comparison the same run made.

#include <vector>

#include "ops/note.h"

namespace bnscope {

struct RunOutcome;

// A reserve-space convention warning advises the other convention; once the comparison passed
// with the one declared (an applied fix, say), that advice would undo it: the note then says
// the data looks otherwise but the outputs agree as declared, and advises nothing.
std::vector<Note> outcome_notes(const RunOutcome& out);

}  // namespace bnscope
