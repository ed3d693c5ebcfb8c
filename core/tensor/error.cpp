#include "tensor/error.h"

namespace bnscope {

namespace {

std::string_view neutral_name(Option o) {
  switch (o) {
    case Option::None:
      return "";
    case Option::Against:
      return "the saved outputs";
    case Option::AllowMissing:
      return "allow missing outputs";
    case Option::Strict:
      return "strict mode";
    case Option::Reps:
      return "repetitions";
    case Option::Filter:
      return "the case filter";
  }
  return "";
}

std::string neutral_hint(Option o) {
  switch (o) {
    case Option::Strict:
      return " (strict mode)";
    case Option::AllowMissing:
      return " (allow missing outputs to compare only the outputs it holds)";
    default:
      return {};
  }
}

}  // namespace

const std::vector<Option>& all_options() {
  static const std::vector<Option> kOptions = {Option::Against, Option::AllowMissing,
                                               Option::Strict, Option::Reps, Option::Filter};
  return kOptions;
}

const OptionWords& neutral_option_words() {
  static const OptionWords kWords{neutral_name, neutral_hint};
  return kWords;
}

std::string error_text(const ErrorParts& p, const OptionWords& words) {
  std::string s;
  if (p.about != Option::None) {
    s = std::string(words.name(p.about));
    if (!p.value.empty()) s += " " + p.value;
    if (!p.problem.empty() || !p.expected.empty()) s += ": ";
  }
  s += p.problem;
  if (!p.expected.empty()) s += (p.problem.empty() ? "expected " : ", expected ") + p.expected;
  if (p.hint != Option::None) s += words.hint(p.hint);
  return s;
}

std::string error_text(const std::exception& e, const OptionWords& words) {
  if (const auto* err = dynamic_cast<const Error*>(&e); err && err->structured())
    return error_text(err->parts(), words);
  return e.what();
}

}  // namespace bnscope
