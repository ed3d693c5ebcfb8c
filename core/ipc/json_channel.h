#pragma once
// JSON messages over a ChildProcess channel: one JSON object per framed message.

#include <atomic>
#include <chrono>

#include "io/json_value.h"
#include "ipc/child_process.h"

namespace bnscope::ipc {

void send_json(ChildProcess& child, const JsonValue& message, std::chrono::milliseconds limit,
               const std::atomic<bool>* cancel = nullptr);
// A reply that is not a JSON object is ChildError(BadMessage) and ends the child.
JsonValue receive_json(ChildProcess& child, std::chrono::milliseconds limit,
                       const std::atomic<bool>* cancel = nullptr);

}  // namespace bnscope::ipc
