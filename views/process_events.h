#pragma once
// Waiting for background work on the UI thread: its completion arrives as a queued event, so
// the wait has to keep the event loop turning rather than block.

#include <functional>

namespace bnscope {

// Processes events until busy() is false or timeoutMs have passed; returns !busy().
bool process_events_while(const std::function<bool()>& busy, int timeoutMs);

}  // namespace bnscope
