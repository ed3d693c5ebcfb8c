#include "option_words.h"

namespace bnscope::cli {

namespace {

std::string_view flag(Option o) {
  switch (o) {
    case Option::None:
      return "";
    case Option::Against:
      return "--against";
    case Option::AllowMissing:
      return "--allow-missing";
    case Option::Strict:
      return "--strict";
    case Option::Reps:
      return "--reps";
    case Option::Filter:
      return "--filter";
  }
  return "";
}

std::string hint(Option o) {
  switch (o) {
    case Option::Strict:
      return " (--strict)";
    case Option::AllowMissing:
      return " (give --allow-missing to compare only the outputs it holds)";
    default:
      return {};
  }
}

}  // namespace

const OptionWords& cli_option_words() {
  static const OptionWords kWords{flag, hint};
  return kWords;
}

}  // namespace bnscope::cli
