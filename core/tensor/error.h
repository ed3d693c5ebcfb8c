#pragma once
// The one error type the engine throws. Messages are single lines meant for the user.
//
// An error about a run's option (the saved outputs to compare with, strict mode, the number of
// repetitions) is structured: which option, the value it had, what is wrong and what was
// expected. Core never spells an option as a front end does (a CLI flag, an app control): each
// front end words the option itself (error_text with its OptionWords); what() is the neutral
// wording, for anywhere that does not.

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace bnscope {

enum class ErrorCode {
  InvalidArgument,    // bad input: shapes, attrs, files
  Unimplemented,      // a combination nobody implements (TensorFlow's Unimplemented)
  Unavailable,        // a backend that is not built or has no device
  ResourceExhausted,  // over the memory limit
  Cancelled,
  Internal,
};

// The options of a run an error can be about; all_options() lists them.
enum class Option {
  None,
  Against,       // the saved outputs a run is compared with
  AllowMissing,  // compare only the outputs the saved ones hold
  Strict,        // what TensorFlow's raw op rejects is an error
  Reps,          // timed repetitions of a profile
  Filter,        // which conformance cases run
};

const std::vector<Option>& all_options();

// What an error says, in parts. `about` with `value` is the option it concerns ("the saved outputs
// big.npz"); `problem` what is wrong, worded without the option; `expected` what was expected,
// when that says more; `hint` an option whose setting made this an error (strict mode) or would
// accept the input (allow missing outputs).
struct ErrorParts {
  Option about = Option::None;
  std::string value;
  std::string problem;
  std::string expected;
  Option hint = Option::None;
};

// How a front end words options: the option's name as its users know it ("--against", "the
// expected outputs"), and the clause a hint adds after the problem (" (--strict)").
struct OptionWords {
  std::string_view (*name)(Option);
  std::string (*hint)(Option);
};

// Core's neutral wording (what() of a structured error).
const OptionWords& neutral_option_words();
// The message in a front end's words: "<name> <value>: <problem>, expected <expected><hint>".
std::string error_text(const ErrorParts& parts, const OptionWords& words);

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  Error(ErrorCode code, ErrorParts parts)
      : std::runtime_error(error_text(parts, neutral_option_words())),
        code_(code),
        parts_(std::move(parts)) {}
  ErrorCode code() const { return code_; }
  // The structure of an error about an option; about and hint are None for any other error.
  const ErrorParts& parts() const { return parts_; }
  bool structured() const { return parts_.about != Option::None || parts_.hint != Option::None; }

 private:
  ErrorCode code_;
  ErrorParts parts_;
};

// The message of any exception in a front end's words (what() for all but structured errors).
std::string error_text(const std::exception& e, const OptionWords& words);

// A value quoted in a message: at most `max` characters, with the total length when clipped.
inline std::string clip_for_message(std::string_view s, std::size_t max = 200) {
  if (s.size() <= max) return std::string(s);
  return std::string(s.substr(0, max)) + "... (" + std::to_string(s.size()) + " characters)";
}

[[noreturn]] inline void fail(const std::string& message) {
  throw Error(ErrorCode::InvalidArgument, message);
}
[[noreturn]] inline void fail(ErrorParts parts) {
  throw Error(ErrorCode::InvalidArgument, std::move(parts));
}

}  // namespace bnscope
