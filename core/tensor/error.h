#pragma once
// The one error type the engine throws. Messages are single lines meant for the user.

#include <stdexcept>
#include <string>

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

[[noreturn]] inline void fail(const std::string& message) {
  throw Error(ErrorCode::InvalidArgument, message);
}

}  // namespace bnscope
