#pragma once
// profile --counters: fills a profile's hardware counters per kernel where they can be collected
// for its backend here, else the one-line reason (gpu/counters.h).

#include "profile/profiler.h"

namespace bnscope::app {
void collect_counters(Profile& p);
}
