#pragma once
// The profile history as text, so that its runs and the pinned baseline outlive the app (schema
// "bnscope-profile-history/1", JSON): every run with its problem, settings and time, and each
// profile with what the history's table, its comparison with a baseline and a report's baseline
// read (phases with their samples and statistics, the phase plan's byte models, traffic and
// roofline). No events (the history keeps none) and no hardware counters.

#include <cstddef>
#include <string>
#include <string_view>

#include "profile/profile_history.h"

namespace bnscope {

std::string profile_history_json(const ProfileHistory& history);

// The history the text holds, its runs added oldest first (new ids 1, 2, ...) and marked
// ProfileRun::earlier_session, and its baseline pinned again. Anything else throws Error
// (InvalidArgument) naming `what`, where in the text, and what was expected there.
ProfileHistory parse_profile_history(std::string_view text, std::string_view what,
                                     std::size_t capacity = ProfileHistory::kCapacity);

}  // namespace bnscope
