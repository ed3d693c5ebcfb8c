#include "option_words.h"

namespace bnscope {

namespace {

std::string_view control(Option o) {
  switch (o) {
    case Option::None:
      return "";
    case Option::Against:
      return "expected outputs";
    case Option::AllowMissing:
      return "compare the outputs present";
    case Option::Strict:
      return "strict mode";
    case Option::Reps:
      return "repetitions";
    case Option::Filter:
      return "filter";
  }
  return "";
}

std::string hint(Option o) {
  switch (o) {
    case Option::Strict:
      return " (strict mode)";
    case Option::AllowMissing:
      return " (the Diff tab compares every output the op writes)";
    default:
      return {};
  }
}

}  // namespace

const OptionWords& app_option_words() {
  static const OptionWords kWords{control, hint};
  return kWords;
}

QString app_error_text(const std::exception& e) {
  return QString::fromStdString(error_text(e, app_option_words()));
}

QString app_error_text(const ValidationProblem& problem) {
  const bool structured = problem.parts.about != Option::None || problem.parts.hint != Option::None;
  return QString::fromStdString(structured ? error_text(problem.parts, app_option_words())
                                           : problem.message);
}

}  // namespace bnscope
