#pragma once
// The one error type the engine throws. Messages are single lines meant for the user.

#include <stdexcept>
#include <string>
#include <string_view>

namespace bnscope {

enum class ErrorCode {
  InvalidArgument,    // bad input: shapes, attrs, files
  Unimplemented,      // a combination nobody implements (TensorFlow's Unimplemented)
  Unavailable,        // a backend that is not built or has no device
  ResourceExhausted,  // over the memory limit
  Cancelled,
  Internal,
};

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ErrorCode code() const { return code_; }

 private:
  ErrorCode code_;
};

// A value quoted in a message: at most `max` characters, with the total length when clipped.
inline std::string clip_for_message(std::string_view s, std::size_t max = 200) {
  if (s.size() <= max) return std::string(s);
  return std::string(s.substr(0, max)) + "... (" + std::to_string(s.size()) + " characters)";
}

[[noreturn]] inline void fail(const std::string& message) {
  throw Error(ErrorCode::InvalidArgument, message);
}

}  // namespace bnscope
