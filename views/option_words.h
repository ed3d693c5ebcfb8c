#pragma once
// The app's words for the options core's errors are about: its own controls ("the expected
// outputs" of the Diff tab, "strict mode"), never the CLI's flags.

#include <QString>
#include <exception>

#include "ops/prepared.h"
#include "tensor/error.h"

namespace bnscope {

const OptionWords& app_option_words();

// A caught exception's message in the app's words.
QString app_error_text(const std::exception& e);
// A validation problem's message in the app's words.
QString app_error_text(const ValidationProblem& problem);

}  // namespace bnscope
