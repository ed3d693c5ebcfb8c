#include "ipc/json_channel.h"

namespace bnscope::ipc {

void send_json(ChildProcess& child, const JsonValue& message, std::chrono::milliseconds limit,
               const std::atomic<bool>* cancel) {
  child.send(dump_json(message), limit, cancel);
}

JsonValue receive_json(ChildProcess& child, std::chrono::milliseconds limit,
                       const std::atomic<bool>* cancel) {
  const std::string text = child.receive(limit, cancel);
  try {
    JsonValue v = parse_json(text, child.spec().what + "'s reply");
    if (v.kind != JsonValue::Kind::Object)
      throw Error(ErrorCode::Internal, child.spec().what + "'s reply is not a JSON object");
    return v;
  } catch (const Error& e) {
    child.kill();
    throw ChildError(ChildFailure::BadMessage, ErrorCode::Internal,
                     std::string(e.what()) + " (" + child.spec().what + " stopped)");
  }
}

}  // namespace bnscope::ipc
